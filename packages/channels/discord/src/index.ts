// @switchboard/channel-discord: being built (see issue). Exports createXChannel and its plugin.
export {};
