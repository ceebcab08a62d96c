import { OpenAPIHono } from '@hono/zod-openapi';
import { consolePageRoutes } from './console/vnc-page.js';
import { createVncRelay } from './console/vnc-relay.js';
import { installChineseValidationMessages } from '../lib/zod-zh.js';
import type { AppDeps, AppEnv } from './context.js';
import { handleError } from './middleware/errors.js';
import { observeRequests } from './middleware/operations.js';
import { traceRequests } from './middleware/tracing.js';
import { fail } from './envelope.js';
import { ErrorCode } from '../lib/errors.js';
import { metricsRegistry } from '../lib/metrics.js';
import { metricsAuthorised, renderMetrics } from '../lib/metrics-server.js';
import { activeTraceId } from '../lib/tracing-context.js';
import { createNotFoundHandler } from './middleware/not-found.js';
import { answerDefaults, corsPreflight } from './middleware/security-headers.js';
import { identifyRequest, requestIdentity } from './middleware/request-id.js';
import { createPublicAnswers } from './public-answers.js';
import { docsRoutes } from './openapi/docs.js';
import { fixNullableRefs } from './openapi/nullable-refs.js';
import { assertOperations, BEARER_SCHEME } from './openapi/operations.js';
import { adminAuthRoutes } from './routes/admin/auth.js';
import { adminLogRoutes } from './routes/admin/logs.js';
import { adminAuditLogRoutes } from './routes/admin/audit-logs.js';
import { adminDashboardRoutes } from './routes/admin/dashboard.js';
import { adminMarginRoutes } from './routes/admin/margins.js';
import { adminNotificationLogRoutes } from './routes/admin/notification-logs.js';
import { adminPluginBindingRoutes } from './routes/admin/plugin-bindings.js';
import { adminPluginRuntimeLogRoutes } from './routes/admin/plugin-runtime-logs.js';
import { adminPluginRoutes } from './routes/admin/plugins.js';
import { adminScheduleRoutes } from './routes/admin/schedules.js';
import { adminSettingRoutes } from './routes/admin/settings.js';
import { adminUserRoutes } from './routes/admin/users.js';
import { adminUserManagementRoutes } from './routes/admin/user-management.js';
import { adminSupplierRoutes } from './routes/admin/suppliers.js';
import { adminSupplierHealthRoutes } from './routes/admin/supplier-health.js';
import { adminProvisioningRoutes } from './routes/admin/provisioning.js';
import { adminProductTypeRoutes } from './routes/admin/product-types.js';
import { clientAuthRoutes } from './routes/client/auth.js';
import { siteProductTypeRoutes } from './routes/site/product-types.js';
import { adminProductMenuRoutes } from './routes/admin/product-menus.js';
import { adminProductGroupRoutes } from './routes/admin/product-groups.js';
import { adminProductCategoryRoutes } from './routes/admin/product-categories.js';
import { adminProductRoutes } from './routes/admin/products.js';
import { adminProductBindingRoutes } from './routes/admin/product-bindings.js';
import { adminCatalogueAuditRoutes } from './routes/admin/catalogue-audit.js';
import { siteCatalogueRoutes } from './routes/site/catalogue.js';
import { siteProductRoutes } from './routes/site/products.js';
import { healthRoutes } from './routes/health.js';
import { adminBalanceAdjustmentRoutes } from './routes/admin/balance-adjustments.js';
import { adminFinanceRoutes } from './routes/admin/finance.js';
import { adminInvoiceRoutes } from './routes/admin/invoices.js';
import { adminLedgerRoutes } from './routes/admin/ledger.js';
import { adminPaymentRoutes } from './routes/admin/payments.js';
import { adminRefundRoutes } from './routes/admin/refunds.js';
import { adminPriceDriftRoutes } from './routes/admin/price-drift.js';
import { adminAlertRoutes } from './routes/admin/alerts.js';
import { clientBalanceRoutes } from './routes/client/balance.js';
import { clientInvoiceRoutes } from './routes/client/invoices.js';
import { clientPaymentNotifyRoutes } from './routes/client/payment-notify.js';
import { clientPaymentRoutes } from './routes/client/payments.js';
import { clientRechargeRoutes } from './routes/client/recharge.js';
import { clientServiceRoutes } from './routes/client/services.js';
import { clientServiceConsoleRoutes } from './routes/client/service-console.js';
import { clientServiceNetworkRoutes } from './routes/client/service-network.js';
import { clientSecurityGroupRoutes } from './routes/client/security-groups.js';
import { clientServiceRenewalRoutes } from './routes/client/service-renewals.js';
import { clientServiceTrafficRoutes } from './routes/client/service-traffic.js';
import { clientServiceUpgradeRoutes } from './routes/client/service-upgrades.js';
import { clientVncTokenRoutes } from './routes/client/vnc-tokens.js';
import { clientVerificationRoutes } from './routes/client/verification.js';
import { adminVerificationRoutes } from './routes/admin/verifications.js';
import { clientAuthCodeRoutes } from './routes/client/auth-codes.js';
import { adminServiceRoutes } from './routes/admin/services.js';
import { adminServiceOrderRoutes } from './routes/admin/service-orders.js';
import { adminReconciliationRoutes } from './routes/admin/reconciliation.js';
import { adminUpstreamFundsRoutes } from './routes/admin/upstream-funds.js';
import { adminTicketRoutes } from './routes/admin/tickets.js';
import { adminMediaRoutes } from './routes/admin/media.js';
import { adminContentRoutes } from './routes/admin/content.js';
import { clientTicketRoutes } from './routes/client/tickets.js';
import { clientContentRoutes } from './routes/client/content.js';
import { siteContentRoutes } from './routes/site/content.js';
import { secureAssetRoutes } from './routes/secure-assets.js';
import { adminTwoFactorRoutes, clientTwoFactorRoutes, twoFactorQrRoutes } from './routes/two-factor.js';
import { adminCouponRoutes } from './routes/admin/coupons.js';
import { adminMemberLevelRoutes } from './routes/admin/member-levels.js';
import { adminReferralRoutes } from './routes/admin/referrals.js';
import { clientCouponRoutes } from './routes/client/coupons.js';
import { clientReferralRoutes } from './routes/client/referrals.js';
import { clientAccessTokenRoutes } from './routes/client/access-tokens.js';
import { adminAccessTokenRoutes } from './routes/admin/access-tokens.js';

export const API_TITLE = '主机转售平台 API';

/** The document-level fields of the OpenAPI document (everything but the operations). */
export const OPENAPI_OBJECT = {
  openapi: '3.1.0',
  info: {
    title: API_TITLE,
    version: '2.0.0',
    description:
      '所有 JSON 响应使用统一信封 {code, message, data, timestamp}；code 为 0 表示成功。列表只接受 page 与 page_size（默认 20，最大 100），列表的 data 只有 {list, total, page, page_size}；合计、统计与上限不放在列表里，而由列表路径下的 /summary（合计）或所属资源的 /limits（上限）等接口给出。接口未声明的查询参数一律答 42200 并在 data.errors 中指出参数名（标有 x-open-query 的接口除外，原因见该接口）；JSON 请求体中接口未声明的字段（任何层级）同样答 42200 并指出字段名，声明为自由映射（additionalProperties）的对象除外。金额为两位小数的字符串（元），币种 CNY；时间格式 YYYY-MM-DD HH:mm:ss（Asia/Shanghai）。',
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  },
  // Relative: the document is served by the API it describes, whatever host that is.
  servers: [{ url: '/', description: '提供本文档的服务器' }],
};

/**
 * Every documented route, built without dependencies (handlers reach them per request), so
 * the OpenAPI document and the SDK can be produced without a database.
 */
export function createApiRoutes() {
  const api = new OpenAPIHono<AppEnv>();
  api.route('/', healthRoutes);
  api.route('/', adminAuthRoutes);
  api.route('/', adminTwoFactorRoutes);
  api.route('/', adminUserRoutes);
  api.route('/', adminUserManagementRoutes);
  api.route('/', adminSettingRoutes);
  api.route('/', adminScheduleRoutes);
  api.route('/', adminLogRoutes);
  api.route('/', adminAuditLogRoutes);
  api.route('/', adminDashboardRoutes);
  api.route('/', adminMarginRoutes);
  api.route('/', adminNotificationLogRoutes);
  // Fixed sub-paths before `/integration-plugins/{id}`, which would otherwise capture them.
  api.route('/', adminPluginBindingRoutes);
  api.route('/', adminPluginRuntimeLogRoutes);
  api.route('/', adminPluginRoutes);
  api.route('/', clientAuthRoutes);
  api.route('/', clientTwoFactorRoutes);
  api.route('/', adminProductTypeRoutes);
  // Before the supplier routes: `/suppliers/health` is not a supplier id.
  api.route('/', adminSupplierHealthRoutes);
  api.route('/', adminSupplierRoutes);
  api.route('/', adminProvisioningRoutes);
  api.route('/', siteProductTypeRoutes);
  api.route('/', adminProductMenuRoutes);
  api.route('/', adminProductGroupRoutes);
  api.route('/', adminProductCategoryRoutes);
  api.route('/', adminProductRoutes);
  api.route('/', adminProductBindingRoutes);
  api.route('/', adminCatalogueAuditRoutes);
  api.route('/', siteCatalogueRoutes);
  api.route('/', siteProductRoutes);
  api.route('/', clientInvoiceRoutes);
  api.route('/', clientPaymentRoutes);
  api.route('/', clientPaymentNotifyRoutes);
  api.route('/', clientRechargeRoutes);
  api.route('/', clientBalanceRoutes);
  api.route('/', adminInvoiceRoutes);
  api.route('/', adminPaymentRoutes);
  api.route('/', adminLedgerRoutes);
  api.route('/', adminRefundRoutes);
  api.route('/', adminPriceDriftRoutes);
  api.route('/', adminAlertRoutes);
  api.route('/', adminBalanceAdjustmentRoutes);
  api.route('/', adminFinanceRoutes);
  api.route('/', clientServiceRoutes);
  api.route('/', clientServiceConsoleRoutes);
  api.route('/', clientServiceNetworkRoutes);
  api.route('/', clientSecurityGroupRoutes);
  api.route('/', clientServiceRenewalRoutes);
  api.route('/', clientServiceTrafficRoutes);
  api.route('/', clientServiceUpgradeRoutes);
  api.route('/', clientVncTokenRoutes);
  api.route('/', clientVerificationRoutes);
  api.route('/', adminVerificationRoutes);
  api.route('/', clientAuthCodeRoutes);
  api.route('/', adminServiceRoutes);
  api.route('/', adminServiceOrderRoutes);
  api.route('/', adminReconciliationRoutes);
  api.route('/', adminUpstreamFundsRoutes);
  api.route('/', adminTicketRoutes);
  api.route('/', adminMediaRoutes);
  api.route('/', adminContentRoutes);
  // `/client/tickets/attachments` (POST) is a fixed path beside `/client/tickets/{id}` (GET only).
  api.route('/', clientTicketRoutes);
  api.route('/', clientContentRoutes);
  api.route('/', siteContentRoutes);
  api.route('/', secureAssetRoutes);
  api.route('/', twoFactorQrRoutes);
  api.route('/', adminCouponRoutes);
  api.route('/', adminMemberLevelRoutes);
  api.route('/', adminReferralRoutes);
  api.route('/', clientCouponRoutes);
  api.route('/', clientReferralRoutes);
  api.route('/', clientAccessTokenRoutes);
  api.route('/', adminAccessTokenRoutes);

  api.openAPIRegistry.registerComponent('securitySchemes', BEARER_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    description:
      '登录令牌（JWT，登录接口返回）或客户的个人访问令牌（hp_pat_…，POST /api/v2/client/access-tokens 创建）。个人访问令牌只能用于客户端接口，且只在接口的 x-token-scope 属于令牌的权限范围时可用（none 表示不可用）；管理端接口一律 40100。',
  });
  assertOperations(api.openAPIRegistry.definitions);
  return api;
}

/** The OpenAPI document served at `/api/openapi.json`. */
export function openApiDocument(api = createApiRoutes()) {
  const document = api.getOpenAPI31Document(OPENAPI_OBJECT);
  fixNullableRefs(document);
  return document;
}

/** Builds the whole HTTP API over the given dependencies; `main.ts` serves it through `serveApp`. */
export function createApp(deps: AppDeps) {
  installChineseValidationMessages();
  const app = new OpenAPIHono<AppEnv>();
  const generateId = () => activeTraceId() ?? crypto.randomUUID();
  // The security headers, `Cache-Control: no-store` and CORS are on every answer, errors and
  // preflights included: set on Node's response before the app runs (`prepare`, called by `serveApp`).
  const prepare = answerDefaults(deps.config.corsOrigins);
  const publicAnswers = createPublicAnswers({ cache: deps.catalogueCache, enabled: !deps.config.tracing, generateId, prepare });
  if (deps.config.tracing) {
    app.use(async (c, next) => {
      c.set('deps', deps);
      c.set('publicAnswers', publicAnswers);
      await next();
    });
    app.use(traceRequests);
    // With tracing on, the request id is the request's trace id (docs/operations.md "Traces").
    app.use(requestIdentity(generateId));
    app.use(observeRequests);
  } else {
    // The same three steps in one hop: the dependencies, the request id, the request's metrics and log row.
    app.use((c, next) => {
      c.set('deps', deps);
      c.set('publicAnswers', publicAnswers);
      identifyRequest(c, generateId);
      return observeRequests(c, next);
    });
  }
  const preflight = corsPreflight(deps.config.corsOrigins);
  if (preflight) app.use(preflight);

  // Prometheus on the API's own port only with a token; with METRICS_PORT it has its own listener (api/main.ts).
  const metrics = deps.config.metrics;
  if (metrics.token && !metrics.apiPort) {
    app.get('/metrics', async (c) => {
      if (!metricsAuthorised(c.req.header('authorization'), metrics.token)) return fail(c, ErrorCode.UNAUTHENTICATED, '需要指标访问令牌', null, 401);
      return c.body(await renderMetrics(), 200, { 'content-type': metricsRegistry.contentType });
    });
  }

  const api = createApiRoutes();
  app.route('/', api);
  // Built once at start-up: a route that cannot be documented fails here, not on a request.
  const document = openApiDocument(api);
  app.get('/api/openapi.json', (c) => c.json(document));
  app.route('/', docsRoutes(deps.config.publicBaseUrl));

  app.route('/', consolePageRoutes());

  app.onError(handleError);
  app.notFound(createNotFoundHandler(app));
  // The console relay's websocket, served by `serveApp` on the same server.
  return Object.assign(app, { upgrade: createVncRelay(deps), prepare, answerDirectly: publicAnswers.answer });
}

export type App = ReturnType<typeof createApp>;
