// The channel conformance suite for WhatsApp as a linked device (Baileys). WhatsApp's servers
// cannot be faked (the handshake pins WhatsApp's certificate), so the gateway's channel opens
// testkit's fake Baileys socket (real Baileys event buffer, protobufs, generateWAMessage and
// media crypto) connected to a FakeWhatsApp world in this process over 127.0.0.1.
//
// The gateway runs as a child process and cannot be handed a socket factory, so the driver's
// `environment()` tells it to load one by path: SWITCHBOARD_WHATSAPP_TEST_SOCKET_FACTORY
// (honoured only together with NODE_ENV=test), with the account's webSocketUrl pointing at the
// world. Only the gateway child gets these variables.
import { createWhatsAppBaileysConformanceDriver } from '@switchboard/testkit/whatsapp';
import { runChannelConformance } from '../conformance.ts';

runChannelConformance(() => createWhatsAppBaileysConformanceDriver(), { label: 'baileys' });
