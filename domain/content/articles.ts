import { sqlOne, sqlRows } from '../../db/sql.js';
import type { ArticleKind, ArticleStatus } from '../../db/models/support.js';
import { AppError, ErrorCode, notFound, validationError } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';

/**
 * Notices and help articles (one table, `kind`), with categories per kind. Bodies are plain
 * text (line breaks kept, nothing rendered as HTML by us; clients show them as text). Site and
 * client readers see `published` articles whose `published_at` has come; lists carry an
 * `excerpt`, the detail the body. Notices have a read state per user (`notice_reads`).
 */

export type CategoryRow = { id: number; kind: ArticleKind; name: string; sort_order: number; article_count: number; created_at: Date; updated_at: Date };

export type ArticleRow = {
  id: number;
  kind: ArticleKind;
  category_id: number | null;
  category_name: string | null;
  title: string;
  excerpt: string;
  status: ArticleStatus;
  published_at: Date | null;
  pinned: boolean;
  sort_order: number;
  created_at: Date;
  updated_at: Date;
};

export type ArticleDetailRow = ArticleRow & { body: string };

export const EXCERPT_LENGTH = 120;

const ARTICLE_COLUMNS = `a.id, a.kind, a.category_id, c.name AS category_name, a.title,
  left(regexp_replace(a.body, '\\s+', ' ', 'g'), ${EXCERPT_LENGTH}) AS excerpt, a.status, a.published_at, a.pinned, a.sort_order, a.created_at, a.updated_at`;
const FROM = 'FROM content_articles a LEFT JOIN content_categories c ON c.id = a.category_id';
const LIVE = "a.status = 'published' AND a.published_at <= now()";

function escapeLike(keyword: string | undefined): string | null {
  return keyword?.trim() ? keyword.trim().replace(/[\\%_]/g, (ch) => `\\${ch}`) : null;
}

// Categories

export async function listCategories(deps: DomainDeps, kind: ArticleKind | null, liveOnly: boolean): Promise<CategoryRow[]> {
  return sqlRows<CategoryRow>(
    deps,
    `SELECT c.id, c.kind, c.name, c.sort_order, c.created_at, c.updated_at,
            (SELECT count(*)::int FROM content_articles a WHERE a.category_id = c.id AND ($2::boolean = false OR (${LIVE}))) AS article_count
       FROM content_categories c WHERE ($1::varchar IS NULL OR c.kind = $1) ORDER BY c.kind, c.sort_order, c.id LIMIT 500`,
    [kind, liveOnly],
  );
}

function duplicateCategory(error: unknown): never {
  if ((error as { code?: string }).code === '23505') throw validationError({ name: ['同类分类名称已存在'] }, '同类分类名称已存在');
  throw error;
}

export async function createCategory(deps: DomainDeps, input: { kind: ArticleKind; name: string; sort_order?: number | undefined }): Promise<number> {
  const row = await sqlOne<{ id: number }>(
    deps,
    'INSERT INTO content_categories (kind, name, sort_order) VALUES ($1, $2, $3) RETURNING id',
    [input.kind, input.name, input.sort_order ?? 0],
  ).catch(duplicateCategory);
  return (row as { id: number }).id;
}

export async function updateCategory(deps: DomainDeps, id: number, input: { name?: string | undefined; sort_order?: number | undefined }): Promise<void> {
  const row = await sqlOne(
    deps,
    'UPDATE content_categories SET name = COALESCE($2, name), sort_order = COALESCE($3, sort_order), updated_at = now() WHERE id = $1 RETURNING id',
    [id, input.name ?? null, input.sort_order ?? null],
  ).catch(duplicateCategory);
  if (!row) throw notFound('分类不存在');
}

export async function deleteCategory(deps: DomainDeps, id: number): Promise<void> {
  const exists = await sqlOne(deps, 'SELECT id FROM content_categories WHERE id = $1', [id]);
  if (!exists) throw notFound('分类不存在');
  const row = await sqlOne(
    deps,
    'DELETE FROM content_categories c WHERE c.id = $1 AND NOT EXISTS (SELECT 1 FROM content_articles a WHERE a.category_id = c.id) RETURNING c.id',
    [id],
  ).catch((error: unknown) => {
    if ((error as { code?: string }).code === '23503') return null;
    throw error;
  });
  if (!row) throw new AppError(ErrorCode.IN_USE, '该分类下还有文章，不能删除');
}

// Articles (admin)

export type ArticleInput = {
  kind: ArticleKind;
  category_id?: number | null | undefined;
  title: string;
  body: string;
  status: ArticleStatus;
  published_at?: Date | null | undefined;
  pinned?: boolean | undefined;
  sort_order?: number | undefined;
};

async function checkCategory(deps: DomainDeps, kind: ArticleKind, categoryId: number | null | undefined): Promise<void> {
  if (categoryId === null || categoryId === undefined) return;
  const row = await sqlOne(deps, 'SELECT id FROM content_categories WHERE id = $1 AND kind = $2', [categoryId, kind]);
  if (!row) throw validationError({ category_id: ['分类不存在，或不属于该文章类型'] });
}

export async function createArticle(deps: DomainDeps, input: ArticleInput): Promise<number> {
  await checkCategory(deps, input.kind, input.category_id);
  const row = await sqlOne<{ id: number }>(
    deps,
    `INSERT INTO content_articles (kind, category_id, title, body, status, published_at, pinned, sort_order)
     VALUES ($1, $2, $3, $4, $5::varchar, CASE WHEN $5::varchar = 'published' THEN COALESCE($6::timestamptz, now()) ELSE $6::timestamptz END, $7, $8) RETURNING id`,
    [input.kind, input.category_id ?? null, input.title, input.body, input.status, input.published_at ?? null, input.pinned ?? false, input.sort_order ?? 0],
  );
  return (row as { id: number }).id;
}

export async function updateArticle(deps: DomainDeps, id: number, input: Partial<Omit<ArticleInput, 'kind'>>): Promise<void> {
  const current = await sqlOne<{ kind: ArticleKind }>(deps, 'SELECT kind FROM content_articles WHERE id = $1', [id]);
  if (!current) throw notFound('文章不存在');
  await checkCategory(deps, current.kind, input.category_id);
  await sqlOne(
    deps,
    `UPDATE content_articles SET
       category_id = CASE WHEN $2::boolean THEN $3::int ELSE category_id END,
       title = COALESCE($4, title), body = COALESCE($5, body), status = COALESCE($6::varchar, status),
       -- A published article always has its publish time (the CHECK): now, when none is given.
       published_at = CASE WHEN COALESCE($6::varchar, status) = 'published'
         THEN COALESCE(CASE WHEN $7::boolean THEN $8::timestamptz ELSE published_at END, now())
         ELSE CASE WHEN $7::boolean THEN $8::timestamptz ELSE published_at END END,
       pinned = COALESCE($9, pinned), sort_order = COALESCE($10, sort_order), updated_at = now()
     WHERE id = $1 RETURNING id`,
    [
      id,
      input.category_id !== undefined,
      input.category_id ?? null,
      input.title ?? null,
      input.body ?? null,
      input.status ?? null,
      input.published_at !== undefined,
      input.published_at ?? null,
      input.pinned ?? null,
      input.sort_order ?? null,
    ],
  );
}

export async function deleteArticle(deps: DomainDeps, id: number): Promise<void> {
  const row = await sqlOne(deps, 'DELETE FROM content_articles WHERE id = $1 RETURNING id', [id]);
  if (!row) throw notFound('文章不存在');
}

export type ArticleListQuery = {
  page: number;
  page_size: number;
  kind?: ArticleKind | undefined;
  status?: ArticleStatus | undefined;
  category_id?: number | undefined;
  pinned?: boolean | undefined;
  keyword?: string | undefined;
};

export async function listArticles(deps: DomainDeps, query: ArticleListQuery, liveOnly: boolean): Promise<{ rows: ArticleRow[]; total: number }> {
  const where = `($1::varchar IS NULL OR a.kind = $1) AND ($2::varchar IS NULL OR a.status = $2) AND ($3::int IS NULL OR a.category_id = $3)
    AND ($4::boolean IS NULL OR a.pinned = $4) AND ($5::text IS NULL OR a.title ILIKE '%' || $5 || '%' ESCAPE '\\')
    AND ($6::boolean = false OR (${LIVE}))`;
  const params = [query.kind ?? null, query.status ?? null, query.category_id ?? null, query.pinned ?? null, escapeLike(query.keyword), liveOnly];
  const [count] = await sqlRows<{ n: number }>(deps, `SELECT count(*)::int AS n ${FROM} WHERE ${where}`, params);
  const order = liveOnly ? 'a.pinned DESC, a.sort_order, a.published_at DESC, a.id DESC' : 'a.id DESC';
  const rows = await sqlRows<ArticleRow>(deps, `SELECT ${ARTICLE_COLUMNS} ${FROM} WHERE ${where} ORDER BY ${order} LIMIT $7 OFFSET $8`, [
    ...params,
    query.page_size,
    (query.page - 1) * query.page_size,
  ]);
  return { rows, total: count?.n ?? 0 };
}

/** One article; readers (`liveOnly`) get 40400 for drafts, future ones and the other kind. */
export async function getArticle(deps: DomainDeps, id: number, options: { kind?: ArticleKind; liveOnly: boolean }): Promise<ArticleDetailRow> {
  const row = await sqlOne<ArticleDetailRow>(
    deps,
    `SELECT ${ARTICLE_COLUMNS}, a.body ${FROM} WHERE a.id = $1 AND ($2::varchar IS NULL OR a.kind = $2) AND ($3::boolean = false OR (${LIVE}))`,
    [id, options.kind ?? null, options.liveOnly],
  );
  if (!row) throw notFound(options.kind === 'help' ? '帮助文章不存在' : options.kind === 'notice' ? '公告不存在' : '文章不存在');
  return row;
}

// Notice read state (client)

/** Which of these notices the user has read. */
export async function readNoticeIds(deps: DomainDeps, userId: number, articleIds: number[]): Promise<Set<number>> {
  if (articleIds.length === 0) return new Set();
  const rows = await sqlRows<{ article_id: number }>(deps, 'SELECT article_id FROM notice_reads WHERE user_id = $1 AND article_id = ANY($2::int[])', [userId, articleIds]);
  return new Set(rows.map((r) => r.article_id));
}

/** Marks a live notice read (once; reading again changes nothing). */
export async function markNoticeRead(deps: DomainDeps, userId: number, articleId: number): Promise<void> {
  await sqlRows(deps, 'INSERT INTO notice_reads (user_id, article_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING article_id', [userId, articleId]);
}

export async function unreadNoticeCount(deps: DomainDeps, userId: number): Promise<number> {
  const row = await sqlOne<{ n: number }>(
    deps,
    `SELECT count(*)::int AS n FROM content_articles a WHERE a.kind = 'notice' AND ${LIVE}
        AND NOT EXISTS (SELECT 1 FROM notice_reads r WHERE r.user_id = $1 AND r.article_id = a.id)`,
    [userId],
  );
  return row?.n ?? 0;
}
