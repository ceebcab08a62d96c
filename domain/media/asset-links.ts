import { createHmac } from 'node:crypto';
import { AppError, ErrorCode } from '../../lib/errors.js';
import { constantTimeEqual, deriveKey } from '../../lib/crypto.js';
import type { DomainDeps } from '../deps.js';

export const SECURE_ASSET_PATH = '/api/secure-assets/view';

/** Who may open a private asset's link: the user or admin it was issued to. Public assets have no viewer. */
export type AssetViewer = { type: 'user'; id: number } | { type: 'admin'; id: number };

/** Public links are issued per hour window (stable within the hour, so cached pages keep one URL), valid up to two hours. */
const PUBLIC_WINDOW_SECONDS = 3600;

function viewerTag(viewer: AssetViewer | null): string {
  return viewer ? `${viewer.type === 'user' ? 'u' : 'a'}${viewer.id}` : 'public';
}

function signature(deps: DomainDeps, assetId: string, expires: number, viewer: AssetViewer | null): string {
  const key = deriveKey(deps.config.secretKey, 'secure-asset-url');
  return createHmac('sha256', key).update(`${assetId}\n${expires}\n${viewerTag(viewer)}`).digest('base64url');
}

/**
 * A short-lived signed link to one stored file, relative to the API's base. A private asset's
 * link is bound to its viewer: the view route requires that viewer's bearer token as well.
 */
export function assetUrl(deps: DomainDeps, assetId: string, viewer: AssetViewer | null, now = Date.now()): string {
  const seconds = Math.floor(now / 1000);
  const expires = viewer
    ? seconds + deps.config.storage.assetUrlTtlSeconds
    : (Math.floor(seconds / PUBLIC_WINDOW_SECONDS) + 2) * PUBLIC_WINDOW_SECONDS;
  const query = new URLSearchParams({ asset: assetId, expires: String(expires), sig: signature(deps, assetId, expires, viewer) });
  return `${SECURE_ASSET_PATH}?${query.toString()}`;
}

/**
 * Checks a link: a signature that matches neither the public form nor the presented viewer's is
 * 40300 (tampered, or issued to someone else); a genuine one past `expires` is 41000 (HTTP 410).
 * Answers whether the link was the private (viewer-bound) kind.
 */
export function verifyAssetLink(
  deps: DomainDeps,
  link: { asset: string; expires: number; sig: string },
  viewer: AssetViewer | null,
  now = Date.now(),
): { private: boolean } {
  const matches = (who: AssetViewer | null) => constantTimeEqual(signature(deps, link.asset, link.expires, who), link.sig);
  let isPrivate: boolean;
  if (matches(null)) isPrivate = false;
  else if (viewer && matches(viewer)) isPrivate = true;
  else throw new AppError(ErrorCode.FORBIDDEN, '文件链接签名无效，或不属于当前登录账号');
  if (link.expires * 1000 <= now) throw new AppError(ErrorCode.ASSET_LINK_EXPIRED);
  return { private: isPrivate };
}
