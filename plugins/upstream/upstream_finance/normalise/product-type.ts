/** Our fixed product type for an upstream product `type`. */
const TYPE_MAP: Record<string, string> = {
  cloud: 'cloud_server',
  dcimcloud: 'cloud_server',
  dcim: 'bare_metal',
  cdn: 'cdn',
  hosting: 'web_hosting',
  host: 'web_hosting',
  cpanel: 'web_hosting',
};

export function toProductType(upstreamType: string): string {
  return TYPE_MAP[upstreamType.trim().toLowerCase()] ?? 'other';
}
