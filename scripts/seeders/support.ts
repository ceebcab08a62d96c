import { PNG } from 'pngjs';
import { sqlOne } from '../../db/sql.js';
import { createArticle, createCategory } from '../../domain/content/articles.js';
import { saveHomeHero } from '../../domain/content/home-hero.js';
import type { DomainDeps } from '../../domain/deps.js';
import { storeUpload } from '../../domain/media/media.js';
import { createDepartment } from '../../domain/support/departments.js';
import { createTicket, replyAsStaff } from '../../domain/support/tickets.js';
import { DEMO_CLIENT } from './demo.js';

/** A small gradient banner, made here (no binary fixture in the repository). */
function bannerPng(): Buffer {
  const png = new PNG({ width: 96, height: 32 });
  for (let y = 0; y < png.height; y += 1) {
    for (let x = 0; x < png.width; x += 1) {
      const i = (png.width * y + x) << 2;
      png.data[i] = 30 + x;
      png.data[i + 1] = 90 + y * 2;
      png.data[i + 2] = 200;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

/**
 * Demo support and content for `npm run dev`: departments, a ticket of the demo client with a
 * staff reply, notices and help articles with categories, and the home hero with an image.
 * Runs once: skipped when any department exists.
 */
export async function seedDemoSupport(deps: DomainDeps): Promise<string[]> {
  const any = await sqlOne(deps, 'SELECT id FROM ticket_departments LIMIT 1', []);
  if (any) return [];
  const created: string[] = [];
  const tech = await createDepartment(deps, { name: '技术支持', description: '服务器、网络与控制台问题', notify_email: 'support@example.com', sort_order: 1 });
  await createDepartment(deps, { name: '财务', description: '账单、发票与退款', sort_order: 2 });
  await createDepartment(deps, { name: '售前咨询', description: '产品选型与报价', sort_order: 3 });
  created.push('departments:3');

  const client = await deps.db.models.User.findOne({ where: { email: DEMO_CLIENT.email } });
  const admin = await deps.db.models.Admin.findOne({ order: [['id', 'ASC']] });
  if (client && admin) {
    const ticketId = await createTicket(deps, client.id, {
      department_id: tech.id,
      subject: '香港云服务器 SSH 无法连接',
      body: '您好：\n今天上午开始 SSH 连接超时，控制台可以登录。请帮忙看看。\n谢谢！',
      priority: 'high',
    });
    await replyAsStaff(deps, admin.id, ticketId, { body: '内部：宿主机防火墙规则已确认正常。', internal: true });
    await replyAsStaff(deps, admin.id, ticketId, { body: '您好，已排查到安全组未放行 22 端口，已为您添加规则，请再试一次。', internal: false });
    created.push(`ticket:${ticketId}`);
  }

  const notices = await createCategory(deps, { kind: 'notice', name: '系统公告' });
  const guide = await createCategory(deps, { kind: 'help', name: '新手入门', sort_order: 1 });
  const billing = await createCategory(deps, { kind: 'help', name: '账单与付款', sort_order: 2 });
  await createArticle(deps, { kind: 'notice', category_id: notices, title: '香港机房网络升级通知', body: '为提升网络质量，香港机房将于本周六 02:00-04:00 进行网络升级，期间可能出现短暂中断。\n给您带来的不便敬请谅解。', status: 'published', pinned: true });
  await createArticle(deps, { kind: 'notice', category_id: notices, title: '新品上线：美国高防云服务器', body: '美国高防云服务器现已上线，首月 8 折。', status: 'published' });
  await createArticle(deps, { kind: 'help', category_id: guide, title: '如何通过 SSH 登录云服务器', body: '1. 在用户中心的服务详情中查看 IP 与初始密码。\n2. 使用终端执行 ssh root@<IP>。\n3. 首次登录后请立即修改密码。', status: 'published', pinned: true });
  await createArticle(deps, { kind: 'help', category_id: guide, title: '忘记服务器密码怎么办', body: '在服务控制台中选择「重置密码」，按提示操作即可。', status: 'published' });
  await createArticle(deps, { kind: 'help', category_id: billing, title: '余额充值与自动续费', body: '开启自动续费后，系统会在到期前从账户余额扣款续费；余额不足时会提前提醒。', status: 'published' });
  created.push('notices:2', 'help-articles:3');

  if (admin) {
    const image = await storeUpload(deps, { bytes: bannerPng(), name: 'home-banner.png', allowed: ['image/png'], purpose: 'content', owner: { type: 'admin', id: admin.id } });
    await saveHomeHero(deps, { title: '云服务器限时特惠', subtitle: '香港、美国多地机房，开通即用', image_asset_id: image.asset_id, cta_label: '立即选购', cta_url: '/products', visible: true });
    created.push('home-hero');
  }
  return created;
}
