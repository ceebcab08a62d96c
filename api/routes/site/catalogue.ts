import { BILLING_PERIODS, billingPeriodLabel, billingPeriodMonths } from '../../../domain/catalogue/billing-periods.js';
import { MAX_QUOTE_QUANTITY } from '../../../domain/catalogue/pricing.js';
import { productTypeOptions } from '../../../domain/catalogue/product-types.js';
import { HOME_FEATURED_PRODUCTS, HOME_MENUS, listSiteCategories, listSiteGroups, listSiteMenus, listSiteProducts } from '../../../domain/catalogue/site-catalogue.js';
import { getHomeHero } from '../../../domain/content/home-hero.js';
import { siteSettings } from '../../../domain/settings/groups/site.js';
import { readSettings } from '../../../domain/settings/settings.js';
import { TIME_ZONE } from '../../../lib/time.js';
import { cachedData, okCached, present } from '../../cached-envelope.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import {
  siteCategoryResource,
  siteCategorySchema,
  siteConfigSchema,
  siteGroupResource,
  siteGroupSchema,
  siteHomeSchema,
  siteMenuResource,
  siteMenuSchema,
  siteProductItemResource,
} from '../../resources/site-catalogue.js';
import { heroResource } from '../../resources/support.js';
import { idQuery, listQuery, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../../schemas.js';

const tags = ['站点：商品目录'];
const open = { surface: 'public' } as const;
const optionalId = idQuery().optional();

const menus = defineRoute({
  method: 'get',
  path: '/api/v2/site/product-menus',
  tags,
  summary: '一级菜单（仅显示中的）',
  description: 'product_count 为在售商品数（商品上架且其菜单、分组、分类均显示）。',
  access: open,
  request: { query: listQuery({}) },
  data: pageSchema(siteMenuSchema),
});

const groups = defineRoute({
  method: 'get',
  path: '/api/v2/site/product-groups',
  tags,
  summary: '二级分组（仅显示中的）',
  access: open,
  request: { query: listQuery({ first_product_group_id: optionalId }) },
  data: pageSchema(siteGroupSchema),
});

const categories = defineRoute({
  method: 'get',
  path: '/api/v2/site/product-categories',
  tags,
  summary: '三级分类（仅显示中的）',
  access: open,
  request: { query: listQuery({ second_product_group_id: optionalId, first_product_group_id: optionalId }) },
  data: pageSchema(siteCategorySchema),
});

const config = defineRoute({
  method: 'get',
  path: '/api/v2/site/config',
  tags,
  summary: '站点配置（站点名称、币种、计费周期、商品类型）',
  access: open,
  data: siteConfigSchema,
});

const home = defineRoute({
  method: 'get',
  path: '/api/v2/site/home',
  tags,
  summary: '首页首屏（菜单、推荐商品与首页横幅，小于 50 KB）',
  description: `menus 为显示中的前 ${HOME_MENUS} 个一级菜单；featured_products 为按店面顺序（sort_order、编号）的前 ${HOME_FEATURED_PRODUCTS} 个在售商品。`,
  access: open,
  data: siteHomeSchema,
});

export const siteCatalogueRoutes = createRouter()
  .openapi(menus, async (c) => {
    const query = c.req.valid('query');
    const data = await cachedData(c.var.deps, `menus:${query.page}:${query.page_size}`, async () => {
      const { rows, total } = await listSiteMenus(c.var.deps, query);
      return page(rows.map(siteMenuResource), total, query);
    });
    return okCached(c, present(data));
  })
  .openapi(groups, async (c) => {
    const query = c.req.valid('query');
    const key = `groups:${query.page}:${query.page_size}:${query.first_product_group_id ?? ''}`;
    const data = await cachedData(c.var.deps, key, async () => {
      const { rows, total } = await listSiteGroups(c.var.deps, query);
      return page(rows.map(siteGroupResource), total, query);
    });
    return okCached(c, present(data));
  })
  .openapi(categories, async (c) => {
    const query = c.req.valid('query');
    const key = `categories:${query.page}:${query.page_size}:${query.second_product_group_id ?? ''}:${query.first_product_group_id ?? ''}`;
    const data = await cachedData(c.var.deps, key, async () => {
      const { rows, total } = await listSiteCategories(c.var.deps, query);
      return page(rows.map(siteCategoryResource), total, query);
    });
    return okCached(c, present(data));
  })
  .openapi(config, async (c) => {
    const site = await readSettings(c.var.deps, siteSettings);
    return ok(c, {
      site_name: site.name,
      support_email: site.support_email,
      support_phone: site.support_phone,
      icp_record: site.icp_record,
      footer_text: site.footer_text,
      currency: 'CNY' as const,
      currency_symbol: '¥',
      time_zone: TIME_ZONE,
      billing_periods: BILLING_PERIODS.map((value) => ({ value, label: billingPeriodLabel(value), months: billingPeriodMonths(value) })),
      product_types: productTypeOptions(),
      max_quote_quantity: MAX_QUOTE_QUANTITY,
      page_size_default: PAGE_SIZE_DEFAULT,
      page_size_max: PAGE_SIZE_MAX,
    });
  })
  .openapi(home, async (c) => {
    const deps = c.var.deps;
    const data = await cachedData(deps, 'home', async () => {
      const [menuPage, productPage, hero] = await Promise.all([
        listSiteMenus(deps, { page: 1, page_size: HOME_MENUS }),
        listSiteProducts(deps, { page: 1, page_size: HOME_FEATURED_PRODUCTS }),
        getHomeHero(deps),
      ]);
      const site = await readSettings(deps, siteSettings);
      return {
        site_name: site.name,
        currency: 'CNY' as const,
        menus: menuPage.rows.map(siteMenuResource),
        featured_products: productPage.rows.map(siteProductItemResource),
        hero: heroResource(deps, hero),
      };
    });
    return okCached(c, present(data));
  });
