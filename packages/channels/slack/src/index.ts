// @switchboard/channel-slack: being built (see issue). Exports createXChannel and its plugin.
export {};
