// @switchboard/channel-telegram: being built (see issue). Exports createXChannel and its plugin.
export {};
