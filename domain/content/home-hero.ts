import { inTransaction, sqlOne } from '../../db/sql.js';
import { validationError } from '../../lib/errors.js';
import { publishCatalogueChange } from '../catalogue/catalogue-events.js';
import type { DomainDeps } from '../deps.js';
import { lockMediaForReference } from '../media/media.js';

/**
 * The home page hero (one row): title, subtitle, an uploaded image, a call to action. Shown by
 * `GET /api/v2/site/home-hero` and inside `/api/v2/site/home`, whose cached answer is dropped
 * on every change (the catalogue cache's invalidation, across processes).
 */
export type HeroRow = {
  title: string;
  subtitle: string;
  image_asset_id: string | null;
  cta_label: string;
  cta_url: string;
  visible: boolean;
  updated_at: Date | null;
};

const EMPTY: HeroRow = { title: '', subtitle: '', image_asset_id: null, cta_label: '', cta_url: '', visible: false, updated_at: null };

export async function getHomeHero(deps: DomainDeps): Promise<HeroRow> {
  const row = await sqlOne<HeroRow>(
    deps,
    `SELECT h.title, h.subtitle, m.asset_id AS image_asset_id, h.cta_label, h.cta_url, h.visible, h.updated_at
       FROM site_home_hero h LEFT JOIN media_files m ON m.id = h.image_media_id AND m.deleted_at IS NULL WHERE h.id = 1`,
    [],
  );
  return row ?? EMPTY;
}

export type HeroInput = { title: string; subtitle: string; image_asset_id: string | null; cta_label: string; cta_url: string; visible: boolean };

export async function saveHomeHero(deps: DomainDeps, input: HeroInput): Promise<HeroRow> {
  await inTransaction(deps, async (tx) => {
    let mediaId: number | null = null;
    if (input.image_asset_id) {
      const [file] = await lockMediaForReference(deps, [input.image_asset_id], tx);
      if (!file || file.visibility !== 'public' || !file.mime.startsWith('image/')) throw validationError({ image_asset_id: ['图片不存在，请先通过上传图片接口上传'] });
      mediaId = file.id;
    }
    await sqlOne(
      deps,
      `INSERT INTO site_home_hero (id, title, subtitle, image_media_id, cta_label, cta_url, visible, updated_at) VALUES (1, $1, $2, $3, $4, $5, $6, now())
       ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title, subtitle = EXCLUDED.subtitle, image_media_id = EXCLUDED.image_media_id,
         cta_label = EXCLUDED.cta_label, cta_url = EXCLUDED.cta_url, visible = EXCLUDED.visible, updated_at = now()
       RETURNING id`,
      [input.title, input.subtitle, mediaId, input.cta_label, input.cta_url, input.visible],
      tx,
    );
  });
  await publishCatalogueChange(deps);
  return getHomeHero(deps);
}
