import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../../scripts/seeders/demo.js';
import { seedDemoSupport } from '../../../scripts/seeders/support.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
  await seedDemoData(platform.deps);
});
afterAll(async () => {
  await platform?.close();
});

describe('demo support seeder', () => {
  it('seeds departments, a ticket with replies, notices, help articles and a hero the site shows; a second run changes nothing', async () => {
    const first = await seedDemoSupport(platform.deps);
    expect(first).toEqual(expect.arrayContaining(['departments:3', 'notices:2', 'help-articles:3', 'home-hero']));
    expect(first.some((c) => c.startsWith('ticket:'))).toBe(true);
    expect(await seedDemoSupport(platform.deps)).toEqual([]);

    const hero = await platform.api.get('/api/v2/site/home-hero');
    expect(hero.body.data).toMatchObject({ title: '云服务器限时特惠', visible: true });
    const image = await fetch(`${platform.baseUrl}${hero.body.data.image_url}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect((await platform.api.get('/api/v2/site/notices')).body.data.total).toBe(2);
    expect((await platform.api.get('/api/v2/site/help-articles')).body.data.total).toBe(3);
    const tickets = await platform.api.get('/api/v2/admin/tickets', { token: await platform.rootToken() });
    expect(tickets.body.data.list).toEqual([expect.objectContaining({ status: 'answered', subject: '香港云服务器 SSH 无法连接' })]);
  });
});
