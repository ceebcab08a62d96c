import { adminActor } from '../../../lib/actor.js';
import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { SUPPLIER_INTERFACE_TYPES } from '../../../db/models/supplier.js';
import { parsePriceRule } from '../../../domain/suppliers/price-rule.js';
import { bindProductsToSupplier, pullSupplierProducts, readSupplierCatalogue, syncSupplierProduct } from '../../../domain/suppliers/product-import.js';
import { invokeSupplierPlugin } from '../../../domain/suppliers/supplier-plugin.js';
import { createSupplier, deleteSupplier, getSupplier, listSuppliers, updateSupplier } from '../../../domain/suppliers/suppliers.js';
import { requireSupplierData } from '../../../domain/suppliers/upstream-result.js';
import { ok, page, pageOfAll, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { supplierResource, supplierSchema } from '../../resources/suppliers.js';
import { idInput, idParam, jsonBody, listQuery, PAGE_SIZE_MAX } from '../../schemas.js';

const tags = ['管理端：供应商'];
const view = { surface: 'admin', permission: 'supplier.view' } as const;
const manage = { surface: 'admin', permission: 'supplier.manage' } as const;
/** Writes that carry the supplier's API secret: step-up (docs/security.md). */
const manageSecrets = { ...manage, stepUp: true } as const;
const base = '/api/v2/admin/suppliers';
const upstreamErrors = [ErrorCode.SUPPLIER_REFUSED, ErrorCode.DEPENDENCY_UNAVAILABLE];

const text = (label: string, max: number) =>
  z.string({ error: `${label}必须是文本` }).trim().min(1, { error: `${label}不能为空` }).max(max, { error: `${label}最多 ${max} 个字符` });

const supplierFields = {
  name: text('供应商名称', 64),
  base_url: text('接口地址', 255),
  account: text('上游账号', 191),
  api_key: z.string({ error: 'API 密钥必须是文本' }).max(255, { error: 'API 密钥最多 255 个字符' }),
  plugin_id: idInput().optional(),
  status: z.enum(['active', 'disabled']).optional(),
  remark: z.string().max(255, { error: '备注最多 255 个字符' }).optional(),
};

const createBody = z.object({
  code: z.string().regex(/^[a-z0-9][a-z0-9_-]{1,31}$/, { error: '供应商编码只能包含小写字母、数字、下划线和横线，2 到 32 个字符' }),
  interface_type: z.enum(SUPPLIER_INTERFACE_TYPES),
  ...supplierFields,
  api_key: supplierFields.api_key.min(1, { error: 'API 密钥不能为空' }),
});

const updateBody = z.object({
  name: supplierFields.name.optional(),
  base_url: supplierFields.base_url.optional(),
  account: supplierFields.account.optional(),
  api_key: supplierFields.api_key.optional().openapi({ description: '留空保留原密钥' }),
  plugin_id: supplierFields.plugin_id,
  status: supplierFields.status,
  remark: supplierFields.remark,
});

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '供应商列表',
  access: view,
  request: {
    query: listQuery({
      keyword: z.string().max(64).optional(),
      interface_type: z.enum(SUPPLIER_INTERFACE_TYPES).optional(),
      status: z.enum(['active', 'disabled']).optional(),
    }),
  },
  data: pageSchema(supplierSchema),
});

const detail = defineRoute({ method: 'get', path: `${base}/{supplier}`, tags, summary: '供应商详情', access: view, request: { params: idParam('supplier') }, data: supplierSchema });

const create = defineRoute({
  method: 'post',
  path: base,
  tags,
  summary: '创建供应商（API 密钥加密保存，从不返回）',
  description: '接口类型 upstream_finance_api 或 hosting_panel_api，须已安装声明该 provider_key 的上游插件。生产环境只允许 HTTPS，且地址不能解析到内网、回环或保留地址。',
  access: manageSecrets,
  request: jsonBody(createBody),
  data: supplierSchema,
  errors: [ErrorCode.CONFLICT],
});

const update = defineRoute({
  method: 'put',
  path: `${base}/{supplier}`,
  tags,
  summary: '修改供应商（api_key 留空保留原密钥）',
  access: manageSecrets,
  request: { params: idParam('supplier'), ...jsonBody(updateBody) },
  data: supplierSchema,
});

const remove = defineRoute({
  method: 'delete',
  path: `${base}/{supplier}`,
  tags,
  summary: '删除供应商（仍绑定商品时拒绝）',
  access: manage,
  request: { params: idParam('supplier') },
  data: z.object({ id: z.number().int() }),
  errors: [ErrorCode.IN_USE],
});

const balance = defineRoute({
  method: 'get',
  path: `${base}/{supplier}/balance`,
  tags,
  summary: '上游账户余额（/cart/credit）',
  access: view,
  request: { params: idParam('supplier') },
  data: z.object({ balance: z.string(), currency: z.string() }),
  errors: upstreamErrors,
});

const connectionTest = defineRoute({
  method: 'post',
  path: `${base}/{supplier}/connection-test`,
  tags,
  summary: '连接测试（重新登录上游并读取账户）',
  access: manage,
  request: { params: idParam('supplier') },
  data: z.object({ success: z.boolean(), message: z.string(), log_id: z.number().int().nullable() }),
});

const upstreamProductSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  product_type: z.string(),
  starting_price: z.object({ billing_period: z.string(), amount: z.string() }).nullable(),
  stock_controlled: z.boolean(),
  stock_qty: z.number().int(),
});

const catalogue = defineRoute({
  method: 'get',
  path: `${base}/{supplier}/upstream-products`,
  tags,
  summary: '上游商品目录（用于选择导入）',
  description: '实时读取上游的整个目录，按上游的分组与顺序分页（page、page_size）。',
  access: manage,
  request: { params: idParam('supplier'), query: listQuery({}) },
  data: pageSchema(upstreamProductSchema.extend({ group_id: z.number().int(), group_name: z.string() })),
  errors: upstreamErrors,
});

const priceRuleSchema = z
  .object({ type: z.enum(['percent', 'fixed']), value: z.union([z.string(), z.number()]) })
  .openapi({ description: 'percent：所有价格乘以 (1 + value/100)；fixed：每个周期的基础价格加 value 元，配置项价格不变。' });

const pull = defineRoute({
  method: 'post',
  path: `${base}/{supplier}/product-pulls`,
  tags,
  summary: '导入上游商品到本地分类（含配置项、库存与加价规则）',
  description: '商品类型取自目标分类所属的一级菜单。已导入过的上游商品会被跳过（请用同步更新）；单个商品失败不影响其他商品。',
  access: manage,
  request: {
    params: idParam('supplier'),
    ...jsonBody(
      z.object({
        upstream_product_ids: z.array(idInput(), { error: 'upstream_product_ids 必须是整数数组' }).min(1).max(PAGE_SIZE_MAX),
        product_group_id: idInput(),
        price_rule: priceRuleSchema.optional(),
        status: z.enum(['active', 'hidden']).default('hidden'),
      }),
    ),
  },
  data: z.object({
    imported: z.array(z.object({ upstream_product_id: z.number().int(), product_id: z.number().int(), name: z.string() })),
    skipped: z.array(z.object({ upstream_product_id: z.number().int(), reason: z.string() })),
  }),
  errors: upstreamErrors,
});

const bind = defineRoute({
  method: 'post',
  path: `${base}/{supplier}/bindings`,
  tags,
  summary: '批量绑定本地商品到上游商品',
  access: manage,
  request: {
    params: idParam('supplier'),
    ...jsonBody(
      z.object({
        ids: z.array(idInput(), { error: 'ids 必须是整数数组' }).min(1, { error: 'ids 不能为空' }).max(PAGE_SIZE_MAX),
        upstream_product_id: idInput(),
      }),
    ),
  },
  data: z.object({ bound: z.array(z.number().int()) }),
  errors: upstreamErrors,
});

const sync = defineRoute({
  method: 'post',
  path: `${base}/{supplier}/products/{product}/sync`,
  tags,
  summary: '同步已绑定商品的配置项与库存',
  access: manage,
  request: { params: idParam('supplier').merge(idParam('product')) },
  data: z.object({ product_id: z.number().int(), stock_control: z.boolean(), stock_qty: z.number().int(), option_count: z.number().int() }),
  errors: upstreamErrors,
});


export const adminSupplierRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listSuppliers(c.var.deps, query);
    return ok(c, page(rows.map(supplierResource), total, query));
  })
  .openapi(detail, async (c) => ok(c, supplierResource(await getSupplier(c.var.deps, c.req.valid('param').supplier))))
  .openapi(create, async (c) => ok(c, supplierResource(await createSupplier(c.var.deps, c.req.valid('json'))), '供应商已创建'))
  .openapi(update, async (c) => ok(c, supplierResource(await updateSupplier(c.var.deps, c.req.valid('param').supplier, c.req.valid('json'))), '供应商已保存'))
  .openapi(remove, async (c) => {
    const id = c.req.valid('param').supplier;
    await deleteSupplier(c.var.deps, id);
    return ok(c, { id }, '供应商已删除');
  })
  .openapi(balance, async (c) => {
    const result = await invokeSupplierPlugin(c.var.deps, c.req.valid('param').supplier, { action: 'upstream.credit', actor: adminActor(c.var.admin) });
    const data = requireSupplierData(result);
    return ok(c, { balance: String(data['balance']), currency: String(data['currency'] ?? 'CNY') });
  })
  .openapi(connectionTest, async (c) => {
    const result = await invokeSupplierPlugin(c.var.deps, c.req.valid('param').supplier, {
      action: 'upstream.login_check',
      actor: adminActor(c.var.admin),
      traceId: c.var.requestId,
    });
    return ok(c, { success: result.success, message: result.message, log_id: result.logId }, result.message);
  })
  .openapi(catalogue, async (c) => {
    const groups = await readSupplierCatalogue(c.var.deps, c.req.valid('param').supplier);
    const list = groups.flatMap((g) =>
      g.products.map((p) => {
        const stock = (p['stock'] ?? { controlled: false, qty: 0 }) as { controlled: boolean; qty: number };
        return {
          group_id: g.id,
          group_name: g.name,
          id: Number(p['id']),
          name: String(p['name'] ?? ''),
          product_type: String(p['product_type'] ?? 'other'),
          starting_price: (p['starting_price'] ?? null) as { billing_period: string; amount: string } | null,
          stock_controlled: stock.controlled,
          stock_qty: stock.qty,
        };
      }),
    );
    return ok(c, pageOfAll(list, c.req.valid('query')));
  })
  .openapi(pull, async (c) => {
    const body = c.req.valid('json');
    const outcome = await pullSupplierProducts(
      c.var.deps,
      c.req.valid('param').supplier,
      { upstream_product_ids: body.upstream_product_ids, product_group_id: body.product_group_id, price_rule: parsePriceRule(body.price_rule), status: body.status },
      adminActor(c.var.admin),
    );
    return ok(c, outcome, `已导入 ${outcome.imported.length} 个商品，跳过 ${outcome.skipped.length} 个`);
  })
  .openapi(bind, async (c) => ok(c, await bindProductsToSupplier(c.var.deps, c.req.valid('param').supplier, c.req.valid('json'), adminActor(c.var.admin)), '绑定完成'))
  .openapi(sync, async (c) => {
    const { supplier, product } = c.req.valid('param');
    const row = await syncSupplierProduct(c.var.deps, supplier, product, adminActor(c.var.admin));
    return ok(c, { product_id: row.id, stock_control: row.stock_control, stock_qty: row.stock_qty, option_count: row.config_options.length }, '同步完成');
  });
