// The Bot API objects the fake reads and writes: the subset of Telegram's types a chat
// bot meets (https://core.telegram.org/bots/api#available-types), in the API's own
// snake_case field names, so they serialise exactly as Telegram's do.

export interface TelegramUser {
  readonly id: number;
  readonly is_bot: boolean;
  readonly first_name: string;
  readonly last_name?: string;
  readonly username?: string;
  readonly language_code?: string;
}

export type TelegramChatType = 'private' | 'group' | 'supergroup' | 'channel';

export interface TelegramChat {
  readonly id: number;
  readonly type: TelegramChatType;
  readonly title?: string;
  readonly username?: string;
  readonly first_name?: string;
  readonly last_name?: string;
  readonly is_forum?: true;
}

export interface TelegramMessageEntity {
  readonly type: string;
  readonly offset: number;
  readonly length: number;
  readonly url?: string;
  readonly user?: TelegramUser;
  readonly language?: string;
}

export interface TelegramPhotoSize {
  readonly file_id: string;
  readonly file_unique_id: string;
  readonly width: number;
  readonly height: number;
  readonly file_size?: number;
}

/** Documents, voice notes, audio, video and stickers: a file with a few extra fields. */
export interface TelegramFileObject {
  readonly file_id: string;
  readonly file_unique_id: string;
  readonly file_size?: number;
  readonly file_name?: string;
  readonly mime_type?: string;
  readonly duration?: number;
  readonly width?: number;
  readonly height?: number;
  readonly is_animated?: boolean;
  readonly is_video?: boolean;
  readonly type?: string;
}

export interface TelegramMessage {
  readonly message_id: number;
  readonly date: number;
  readonly chat: TelegramChat;
  readonly from?: TelegramUser;
  readonly sender_chat?: TelegramChat;
  readonly message_thread_id?: number;
  readonly is_topic_message?: true;
  readonly reply_to_message?: TelegramMessage;
  readonly edit_date?: number;
  readonly media_group_id?: string;
  readonly text?: string;
  readonly entities?: readonly TelegramMessageEntity[];
  readonly caption?: string;
  readonly caption_entities?: readonly TelegramMessageEntity[];
  readonly photo?: readonly TelegramPhotoSize[];
  readonly document?: TelegramFileObject;
  readonly voice?: TelegramFileObject;
  readonly audio?: TelegramFileObject;
  readonly video?: TelegramFileObject;
  readonly animation?: TelegramFileObject;
  readonly sticker?: TelegramFileObject;
  readonly forum_topic_created?: { readonly name: string; readonly icon_color: number };
  readonly [field: string]: unknown;
}

export interface TelegramUpdate {
  readonly update_id: number;
  readonly message?: TelegramMessage;
  readonly edited_message?: TelegramMessage;
  readonly channel_post?: TelegramMessage;
  readonly edited_channel_post?: TelegramMessage;
  readonly [field: string]: unknown;
}

/** What `getFile` answers. */
export interface TelegramFile {
  readonly file_id: string;
  readonly file_unique_id: string;
  readonly file_size?: number;
  readonly file_path?: string;
}
