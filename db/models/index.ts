import type { Sequelize } from 'sequelize';
import { defineAdminRole, defineAdmin } from './admin.js';
import { defineAuthSession, defineLoginLog } from './auth-session.js';
import { defineCatalogueModels } from './catalogue.js';
import { defineIdempotencyKey } from './idempotency-key.js';
import { defineBillingModels } from './billing.js';
import { defineNotificationLog } from './notification-log.js';
import { definePlugin } from './plugin.js';
import { definePluginBinding } from './plugin-binding.js';
import { definePersonalAccessToken } from './personal-access-token.js';
import { definePluginRuntimeLog } from './plugin-runtime-log.js';
import { defineSecurityGroupModels } from './security-group.js';
import { defineServiceModels } from './service.js';
import { defineServiceOrder } from './service-order.js';
import { defineSupplier } from './supplier.js';
import { defineTaskRun } from './task-run.js';
import { defineTwoFactorModels } from './two-factor.js';
import { defineUser } from './user.js';
import { defineVncSession } from './vnc-session.js';

export function defineModels(sequelize: Sequelize) {
  const AdminRole = defineAdminRole(sequelize);
  const Admin = defineAdmin(sequelize);
  Admin.belongsTo(AdminRole, { as: 'role', foreignKey: 'role_id' });
  const Plugin = definePlugin(sequelize);
  const PluginBinding = definePluginBinding(sequelize);
  PluginBinding.belongsTo(Plugin, { as: 'plugin', foreignKey: 'plugin_id' });
  return {
    AdminRole,
    Admin,
    User: defineUser(sequelize),
    AuthSession: defineAuthSession(sequelize),
    PersonalAccessToken: definePersonalAccessToken(sequelize),
    LoginLog: defineLoginLog(sequelize),
    TaskRun: defineTaskRun(sequelize),
    Plugin,
    PluginBinding,
    PluginRuntimeLog: definePluginRuntimeLog(sequelize),
    ...defineCatalogueModels(sequelize),
    Supplier: defineSupplier(sequelize),
    ...defineBillingModels(sequelize),
    ...defineServiceModels(sequelize),
    ServiceOrder: defineServiceOrder(sequelize),
    NotificationLog: defineNotificationLog(sequelize),
    IdempotencyKey: defineIdempotencyKey(sequelize),
    VncSession: defineVncSession(sequelize),
    ...defineSecurityGroupModels(sequelize),
    ...defineTwoFactorModels(sequelize),
  };
}

export type Models = ReturnType<typeof defineModels>;
