// @switchboard/channel-whatsapp: being built (see issue). Exports createXChannel and its plugin.
export {};
