import type { Migration } from './types.js';

/**
 * Support and content (issue #16): ticket departments, tickets and their replies, uploaded
 * files (media) and ticket attachments, notice and help articles with categories and the
 * notices' read state, the home hero; ticket notices in the notification log and their outbox
 * intent kind.
 *
 * Tickets move open → answered (a staff public reply) → customer_reply (the customer replied)
 * → … → closed; a CHECK keeps `closed_at` with `closed`. `reminded_at` is the auto-close
 * reminder of the current wait (cleared by every status change), so it is sent once per wait.
 * A media file is stored under a random key outside the served tree; it is referenced by at
 * most one ticket reply (UNIQUE) and by the hero; FKs refuse deleting a referenced row.
 */
export const migration0019Support: Migration = {
  name: '0019-support',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE ticket_departments (
        id SERIAL PRIMARY KEY,
        name VARCHAR(64) NOT NULL UNIQUE,
        description VARCHAR(255) NOT NULL DEFAULT '',
        notify_email VARCHAR(191),
        sort_order INTEGER NOT NULL DEFAULT 0,
        is_visible BOOLEAN NOT NULL DEFAULT true,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      CREATE TABLE media_files (
        id SERIAL PRIMARY KEY,
        asset_id CHAR(32) NOT NULL UNIQUE,
        storage_key VARCHAR(128) NOT NULL UNIQUE,
        original_name VARCHAR(191) NOT NULL DEFAULT '',
        mime VARCHAR(64) NOT NULL
          CHECK (mime IN ('image/png', 'image/jpeg', 'image/webp', 'image/gif', 'application/pdf', 'text/plain')),
        size_bytes INTEGER NOT NULL CHECK (size_bytes > 0),
        sha256 CHAR(64) NOT NULL,
        width INTEGER,
        height INTEGER,
        visibility VARCHAR(8) NOT NULL CHECK (visibility IN ('public', 'private')),
        purpose VARCHAR(16) NOT NULL CHECK (purpose IN ('content', 'ticket')),
        owner_user_id INTEGER REFERENCES users(id),
        uploaded_by_admin_id INTEGER REFERENCES admins(id),
        deleted_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK ((owner_user_id IS NULL) <> (uploaded_by_admin_id IS NULL)),
        CHECK (purpose <> 'ticket' OR visibility = 'private')
      );
      CREATE INDEX media_files_owner_idx ON media_files (owner_user_id, id DESC) WHERE owner_user_id IS NOT NULL;
      CREATE INDEX media_files_created_idx ON media_files (id DESC);

      CREATE TABLE tickets (
        id SERIAL PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id),
        department_id INTEGER NOT NULL REFERENCES ticket_departments(id),
        service_id INTEGER REFERENCES services(id),
        subject VARCHAR(120) NOT NULL,
        priority VARCHAR(8) NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
        status VARCHAR(16) NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'answered', 'customer_reply', 'closed')),
        assignee_admin_id INTEGER REFERENCES admins(id),
        last_reply_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        last_reply_by VARCHAR(8) NOT NULL DEFAULT 'user' CHECK (last_reply_by IN ('user', 'staff')),
        reminded_at TIMESTAMPTZ,
        closed_at TIMESTAMPTZ,
        closed_by VARCHAR(8) CHECK (closed_by IN ('user', 'staff', 'auto')),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK ((status = 'closed') = (closed_at IS NOT NULL)),
        CHECK ((status = 'closed') = (closed_by IS NOT NULL)),
        CHECK (reminded_at IS NULL OR status IN ('answered', 'closed'))
      );
      CREATE INDEX tickets_user_idx ON tickets (user_id, id DESC);
      CREATE INDEX tickets_status_idx ON tickets (status, last_reply_at);

      CREATE TABLE ticket_replies (
        id BIGSERIAL PRIMARY KEY,
        ticket_id INTEGER NOT NULL REFERENCES tickets(id),
        author_type VARCHAR(8) NOT NULL CHECK (author_type IN ('user', 'staff')),
        user_id INTEGER REFERENCES users(id),
        admin_id INTEGER REFERENCES admins(id),
        body TEXT NOT NULL CHECK (char_length(body) BETWEEN 1 AND 10000),
        is_internal BOOLEAN NOT NULL DEFAULT false,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK ((author_type = 'user') = (user_id IS NOT NULL)),
        CHECK ((author_type = 'staff') = (admin_id IS NOT NULL)),
        CHECK (NOT is_internal OR author_type = 'staff')
      );
      CREATE INDEX ticket_replies_ticket_idx ON ticket_replies (ticket_id, id);
      -- Per-user reply rate limit: the user's recent replies.
      CREATE INDEX ticket_replies_user_idx ON ticket_replies (user_id, created_at) WHERE user_id IS NOT NULL;

      CREATE TABLE ticket_attachments (
        id SERIAL PRIMARY KEY,
        reply_id BIGINT NOT NULL REFERENCES ticket_replies(id),
        media_file_id INTEGER NOT NULL UNIQUE REFERENCES media_files(id),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX ticket_attachments_reply_idx ON ticket_attachments (reply_id);

      CREATE TABLE content_categories (
        id SERIAL PRIMARY KEY,
        kind VARCHAR(8) NOT NULL CHECK (kind IN ('notice', 'help')),
        name VARCHAR(64) NOT NULL,
        sort_order INTEGER NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (kind, name),
        UNIQUE (id, kind)
      );

      CREATE TABLE content_articles (
        id SERIAL PRIMARY KEY,
        kind VARCHAR(8) NOT NULL CHECK (kind IN ('notice', 'help')),
        category_id INTEGER,
        title VARCHAR(120) NOT NULL,
        body TEXT NOT NULL CHECK (char_length(body) <= 50000),
        status VARCHAR(16) NOT NULL CHECK (status IN ('draft', 'published')),
        published_at TIMESTAMPTZ,
        pinned BOOLEAN NOT NULL DEFAULT false,
        sort_order INTEGER NOT NULL DEFAULT 0,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        -- A category of the article's own kind.
        FOREIGN KEY (category_id, kind) REFERENCES content_categories (id, kind),
        CHECK (status = 'draft' OR published_at IS NOT NULL)
      );
      CREATE INDEX content_articles_listing_idx ON content_articles (kind, status, published_at DESC);

      CREATE TABLE notice_reads (
        user_id INTEGER NOT NULL REFERENCES users(id),
        article_id INTEGER NOT NULL REFERENCES content_articles(id) ON DELETE CASCADE,
        read_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, article_id)
      );

      CREATE TABLE site_home_hero (
        id SMALLINT PRIMARY KEY CHECK (id = 1),
        title VARCHAR(80) NOT NULL DEFAULT '',
        subtitle VARCHAR(200) NOT NULL DEFAULT '',
        image_media_id INTEGER REFERENCES media_files(id),
        cta_label VARCHAR(32) NOT NULL DEFAULT '',
        cta_url VARCHAR(255) NOT NULL DEFAULT '',
        visible BOOLEAN NOT NULL DEFAULT false,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      ALTER TABLE notification_log DROP CONSTRAINT IF EXISTS notification_log_kind_check;
      ALTER TABLE notification_log ADD CONSTRAINT notification_log_kind_check
        CHECK (kind IN ('renewal_due', 'service_overdue', 'service_suspended', 'service_terminated', 'invoice_unpaid',
                        'ticket_staff_reply', 'ticket_customer_reply', 'ticket_close_reminder', 'ticket_auto_closed'));
      ALTER TABLE notification_log DROP CONSTRAINT IF EXISTS notification_log_entity_type_check;
      ALTER TABLE notification_log ADD CONSTRAINT notification_log_entity_type_check CHECK (entity_type IN ('service', 'invoice', 'ticket'));

      ALTER TABLE outbox DROP CONSTRAINT IF EXISTS outbox_kind_check;
      ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check
        CHECK (kind IN ('start_fulfilment', 'start_payment', 'start_refund', 'decide_provisioning', 'decide_service_order', 'ticket_notice'));
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP TABLE IF EXISTS site_home_hero, notice_reads, content_articles, content_categories, ticket_attachments, ticket_replies, tickets, media_files, ticket_departments;
    `);
  },
};
