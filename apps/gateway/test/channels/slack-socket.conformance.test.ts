// The channel conformance suite for Slack over Socket Mode: the gateway opens a WebSocket to
// the fake Slack (apps.connections.open) and acknowledges envelopes once journaled.
import { createSlackConformanceDriver } from '@switchboard/testkit/slack';
import { runChannelConformance } from '../conformance.ts';

runChannelConformance(() => createSlackConformanceDriver({ mode: 'socket' }), { label: 'socket' });
