// The channel conformance suite for Slack over the Events API: the fake Slack signs and
// POSTs events to the account's route on the gateway's own HTTP server (/slack/default/events).
import { createSlackConformanceDriver } from '@switchboard/testkit/slack';
import { runChannelConformance } from '../conformance.ts';

runChannelConformance(() => createSlackConformanceDriver({ mode: 'http' }), { label: 'http' });
