// The channel conformance suite for Discord: the real gateway (child process) with
// @switchboard/channel-discord, through discord.js, against testkit's FakeDiscord.
import { createDiscordConformanceDriver } from '@switchboard/testkit/discord';
import { runChannelConformance } from '../conformance.ts';

runChannelConformance(() => createDiscordConformanceDriver());
