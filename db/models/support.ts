/**
 * Stored vocabularies of the support and content tables (migration 0019). These areas read and
 * write through `db/sql.ts` (lists with joins and excerpts, guarded status updates), so there
 * are no Sequelize models; the CHECKs of the migration list the same values.
 */
export const MEDIA_MIME_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'application/pdf', 'text/plain'] as const;
export type MediaMime = (typeof MEDIA_MIME_TYPES)[number];

export const MEDIA_PURPOSES = ['content', 'ticket'] as const;
export type MediaPurpose = (typeof MEDIA_PURPOSES)[number];

export const TICKET_STATUSES = ['open', 'answered', 'customer_reply', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const TICKET_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

export const TICKET_CLOSERS = ['user', 'staff', 'auto'] as const;
export type TicketCloser = (typeof TICKET_CLOSERS)[number];

export const ARTICLE_KINDS = ['notice', 'help'] as const;
export type ArticleKind = (typeof ARTICLE_KINDS)[number];

export const ARTICLE_STATUSES = ['draft', 'published'] as const;
export type ArticleStatus = (typeof ARTICLE_STATUSES)[number];
