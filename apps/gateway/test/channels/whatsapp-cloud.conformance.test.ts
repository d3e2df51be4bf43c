// The channel conformance suite for WhatsApp over the Business Cloud API: FakeWhatsAppCloud
// signs and POSTs webhooks to the account's route on the gateway's own HTTP server
// (/webhooks/whatsapp/default) and answers the channel's Graph API calls.
import { createWhatsAppCloudConformanceDriver } from '@switchboard/testkit/whatsapp';
import { runChannelConformance } from '../conformance.ts';

runChannelConformance(() => createWhatsAppCloudConformanceDriver(), { label: 'cloud' });
