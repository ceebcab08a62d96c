import type { SettingGroup } from './define.js';
import { consoleSettings } from './groups/console.js';
import { economicsSettings } from './groups/economics.js';
import { referralSettings } from './groups/referral.js';
import { registrationSettings } from './groups/registration.js';
import { siteSettings } from './groups/site.js';
import { ticketSettings } from './groups/ticket.js';
import { uploadSettings } from './groups/upload.js';
import { verificationSettings } from './groups/verification.js';
import { accessSettings } from './groups/access.js';
import { securitySettings } from './groups/security.js';

/**
 * Every settings group, in the order the admin page shows them. An area adds its group here
 * (one line) and reads it with `readSettings(deps, group)`.
 */
export const SETTING_GROUPS: readonly SettingGroup[] = [
  siteSettings,
  registrationSettings,
  accessSettings,
  securitySettings,
  verificationSettings,
  consoleSettings,
  ticketSettings,
  uploadSettings,
  referralSettings,
  economicsSettings,
];
