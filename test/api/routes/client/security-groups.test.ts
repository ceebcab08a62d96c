import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_GROUP_LIMITS } from '../../../../domain/services/console/security-groups.js';
import { expectError } from '../../../helpers/http.js';
import { registerClient, type TestClient } from '../../../helpers/billing.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../helpers/services.js';

let platform: ServicesPlatform;

beforeAll(async () => {
  platform = await startServicesPlatform();
});
afterAll(() => platform?.close());

const groups = '/api/v2/client/security-groups';
const services = '/api/v2/client/services';

const SSH = { direction: 'in', protocol: 'tcp', port_range: '22', cidr: '0.0.0.0/0', action: 'allow', description: 'SSH' };
const WEB = { direction: 'in', protocol: 'tcp', port_range: '80-443', cidr: '203.0.113.0/24', action: 'allow' };
const DENY_OUT = { direction: 'out', protocol: 'all', cidr: '2001:db8::/32', action: 'deny' };

/** The sandbox host's security rules (custom module page), through the plugin as the platform reads them. */
async function hostRules(serviceId: number) {
  const { readModulePage } = await import('../../../../domain/services/console/module-call.js');
  const page = await readModulePage(platform.deps, { serviceId, userId: 0, page: 'security_groups' });
  return page.items.map((i) => ({ direction: i['direction'], protocol: i['protocol'], port: i['port'], ip: i['ip'], action: i['action'] }));
}

async function consoleEvents(serviceId: number) {
  const rows = await platform.deps.db.models.ServiceEvent.findAll({ where: { service_id: serviceId, kind: 'console' }, order: [['id', 'ASC']] });
  return rows.map((e) => [e.stage, e.status]);
}

async function boundService(client: TestClient) {
  const hostId = takeHost(platform);
  return { id: await createService(platform, { userId: client.id, productId: platform.productId, hostId }), hostId };
}

async function createGroup(client: TestClient, body: Record<string, unknown>) {
  const res = await platform.api.post(groups, { token: client.token, body });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data as { id: number; rules: Array<{ id: number }> };
}

describe('security groups', () => {
  it('creates, lists, shows and deletes the user’s own groups, locally only', async () => {
    const client = await registerClient(platform);
    const before = platform.sandbox.control.ledger().moduleCalls.length;
    const group = await createGroup(client, { name: ' web ', description: '网站', rules: [SSH, WEB, DENY_OUT] });
    expect(group).toMatchObject({
      name: 'web',
      description: '网站',
      service_ids: [],
      rules: [
        { direction: 'in', protocol: 'tcp', port_range: '22', cidr: '0.0.0.0/0', action: 'allow', description: 'SSH' },
        { port_range: '80-443', cidr: '203.0.113.0/24' },
        { direction: 'out', protocol: 'all', port_range: '1-65535', cidr: '2001:db8::/32', action: 'deny' },
      ],
    });
    const list = await platform.api.get(groups, { token: client.token });
    expect(list.body.data).toMatchObject({ total: 1, page: 1, page_size: 20 });
    expect(list.body.data.list[0]).toMatchObject({ id: group.id, name: 'web', rule_count: 3, service_ids: [] });
    expect((await platform.api.get(`${groups}/${group.id}`, { token: client.token })).body.data.rules).toHaveLength(3);
    expectError(await platform.api.post(groups, { token: client.token, body: { name: 'web' } }), 40900, 409);
    expect((await platform.api.del(`${groups}/${group.id}`, { token: client.token })).body.data).toEqual({ id: group.id, deleted: true });
    expectError(await platform.api.get(`${groups}/${group.id}`, { token: client.token }), 40400, 404);
    expect(platform.sandbox.control.ledger().moduleCalls.length).toBe(before);
  });

  it('validates rules: direction, protocol, port range, CIDR, action, bounds', async () => {
    const client = await registerClient(platform);
    const group = await createGroup(client, { name: 'checks' });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...SSH, direction: 'sideways' }, 'direction'],
      [{ ...SSH, protocol: 'gre' }, 'protocol'],
      [{ ...SSH, port_range: '0' }, 'port_range'],
      [{ ...SSH, port_range: '443-80' }, 'port_range'],
      [{ ...SSH, port_range: '70000' }, 'port_range'],
      [{ ...SSH, port_range: undefined }, 'port_range'],
      [{ ...SSH, cidr: '10.0.0.0/33' }, 'cidr'],
      [{ ...SSH, cidr: '300.1.1.1/24' }, 'cidr'],
      [{ ...SSH, cidr: 'example.com' }, 'cidr'],
      [{ ...SSH, cidr: '10.0.0.0/8/8' }, 'cidr'],
      [{ ...SSH, action: 'maybe' }, 'action'],
      [{ ...SSH, description: 'x'.repeat(256) }, 'description'],
    ];
    for (const [body, field] of cases) {
      const res = await platform.api.post(`${groups}/${group.id}/rules`, { token: client.token, body });
      expectError(res, 42200, 422);
      expect(Object.keys(res.body.data.errors), JSON.stringify(body)).toEqual([field]);
    }
    const nested = await platform.api.post(groups, { token: client.token, body: { name: 'bad', rules: [SSH, { ...WEB, cidr: 'nope' }] } });
    expectError(nested, 42200, 422);
    expect(Object.keys(nested.body.data.errors)).toEqual(['rules.1.cidr']);
    expectError(await platform.api.post(groups, { token: client.token, body: { name: '   ' } }), 42200, 422);
    expectError(await platform.api.post(groups, { token: client.token, body: { name: 'x'.repeat(65) } }), 42200, 422);
    expectError(await platform.api.post(groups, { token: client.token, body: { name: 'many', rules: Array.from({ length: SECURITY_GROUP_LIMITS.rulesPerGroup + 1 }, () => SSH) } }), 42200, 422);
    expect((await platform.api.get(groups, { token: client.token })).body.data.total).toBe(1);
  });

  it('links a group to a service by pushing its rules upstream, syncs rule changes, and unlinks by deleting what it pushed', async () => {
    const client = await registerClient(platform);
    const { id } = await boundService(client);
    const initial = await hostRules(id);
    const group = await createGroup(client, { name: 'linked', rules: [SSH, WEB] });

    const linked = await platform.api.post(`${services}/${id}/security-groups`, { token: client.token, body: { group_id: group.id } });
    expect(linked.body.data).toEqual({ service_id: id, group_id: group.id, linked: true, rules_pushed: 2 });
    expect(await hostRules(id)).toEqual([
      ...initial,
      { direction: 'in', protocol: 'tcp', port: '22', ip: '0.0.0.0/0', action: 'accept' },
      { direction: 'in', protocol: 'tcp', port: '80-443', ip: '203.0.113.0/24', action: 'accept' },
    ]);
    expectError(await platform.api.post(`${services}/${id}/security-groups`, { token: client.token, body: { group_id: group.id } }), 40900, 409);
    const onService = await platform.api.get(`${services}/${id}/security-groups`, { token: client.token });
    expect(onService.body.data).toEqual({ list: [expect.objectContaining({ id: group.id, rule_count: 2, service_ids: [id] })], total: 1, page: 1, page_size: 20 });
    const pastTheEnd = await platform.api.get(`${services}/${id}/security-groups`, { token: client.token, query: { page: 2, page_size: 1 } });
    expect(pastTheEnd.body.data).toEqual({ list: [], total: 1, page: 2, page_size: 1 });
    expectError(await platform.api.get(`${services}/${id}/security-groups`, { token: client.token, query: { page_size: 101 } }), 42200, 422);
    expectError(await platform.api.del(`${groups}/${group.id}`, { token: client.token }), 40901, 409);

    const added = await platform.api.post(`${groups}/${group.id}/rules`, { token: client.token, body: DENY_OUT });
    expect(added.body.data).toMatchObject({ direction: 'out', protocol: 'all', port_range: '1-65535', action: 'deny' });
    expect((await hostRules(id)).at(-1)).toEqual({ direction: 'out', protocol: 'all', port: '1-65535', ip: '2001:db8::/32', action: 'drop' });
    const removed = await platform.api.del(`${groups}/${group.id}/rules/${group.rules[0]?.id}`, { token: client.token });
    expect(removed.body.data).toEqual({ group_id: group.id, rule_id: group.rules[0]?.id, deleted: true });
    expect((await hostRules(id)).filter((r) => r.port === '22' && r.ip === '0.0.0.0/0' && r.action === 'accept')).toEqual([]);

    const unlinked = await platform.api.del(`${services}/${id}/security-groups/${group.id}`, { token: client.token });
    expect(unlinked.body.data).toEqual({ service_id: id, group_id: group.id, linked: false });
    expect(await hostRules(id)).toEqual(initial);
    expect(await consoleEvents(id)).toEqual([
      ['security_link', 'succeeded'],
      ['security_rule_add', 'succeeded'],
      ['security_rule_remove', 'succeeded'],
      ['security_unlink', 'succeeded'],
    ]);
    expect((await platform.api.del(`${groups}/${group.id}`, { token: client.token })).body.data.deleted).toBe(true);
  });

  it('takes back a half-done link when the upstream refuses a rule (its limit, a refusal, an outage), and keeps the group and the host as they were', async () => {
    const client = await registerClient(platform);
    const { id, hostId } = await boundService(client);
    const initial = await hostRules(id);
    // The host holds one rule already: the upstream takes 49 of these 50, then refuses (its limit).
    const many = Array.from({ length: SECURITY_GROUP_LIMITS.rulesPerGroup }, (_, i) => ({ ...SSH, port_range: String(1000 + i) }));
    const full = await createGroup(client, { name: 'full', rules: many });
    const ledger = () => platform.sandbox.control.ledger().moduleActions;
    const limited = await platform.api.post(`${services}/${id}/security-groups`, { token: client.token, body: { group_id: full.id } });
    expectError(limited, 40950, 409);
    expect(limited.body.message).toBe('已达到上游允许的数量上限');
    expect(ledger()[`${hostId}:addSecurityRule`]).toBe(49);
    expect(ledger()[`${hostId}:delSecurityRule`]).toBe(49);
    expect(await hostRules(id)).toEqual(initial);
    expect((await platform.api.get(`${groups}/${full.id}`, { token: client.token })).body.data.service_ids).toEqual([]);
    expect((await consoleEvents(id)).at(-1)).toEqual(['security_link', 'failed']);

    const group = await createGroup(client, { name: 'half', rules: [SSH, WEB, DENY_OUT] });
    platform.sandbox.control.failNext(1, 'refused', { path: `/provision/custom/${hostId}` });
    expectError(await platform.api.post(`${services}/${id}/security-groups`, { token: client.token, body: { group_id: group.id } }), 40930, 409);
    expect(await hostRules(id)).toEqual(initial);
    platform.sandbox.control.failNext(1, 'html500', { path: `/provision/custom/${hostId}` });
    expectError(await platform.api.post(`${services}/${id}/security-groups`, { token: client.token, body: { group_id: group.id } }), 50300, 503);
    expect(await hostRules(id)).toEqual(initial);

    expect((await platform.api.post(`${services}/${id}/security-groups`, { token: client.token, body: { group_id: group.id } })).body.data.rules_pushed).toBe(3);
    platform.sandbox.control.failNext(1, 'refused', { path: `/provision/custom/${hostId}` });
    expectError(await platform.api.post(`${groups}/${group.id}/rules`, { token: client.token, body: { ...SSH, port_range: '2222' } }), 40930, 409);
    expect((await platform.api.get(`${groups}/${group.id}`, { token: client.token })).body.data.rules).toHaveLength(3);
    platform.sandbox.control.failNext(1, 'html500', { path: `/provision/custom/${hostId}` });
    expectError(await platform.api.del(`${services}/${id}/security-groups/${group.id}`, { token: client.token }), 50300, 503);
    expect((await platform.api.get(`${groups}/${group.id}`, { token: client.token })).body.data.service_ids).toEqual([id]);
    expect((await platform.api.del(`${services}/${id}/security-groups/${group.id}`, { token: client.token })).body.data.linked).toBe(false);
    expect(await hostRules(id)).toEqual(initial);
  });

  it('refuses a group change while a linked service cannot take it', async () => {
    const client = await registerClient(platform);
    const { id } = await boundService(client);
    const group = await createGroup(client, { name: 'frozen', rules: [SSH] });
    await platform.api.post(`${services}/${id}/security-groups`, { token: client.token, body: { group_id: group.id } });
    await platform.deps.db.models.Service.update({ status: 'suspended' }, { where: { id } });
    const res = await platform.api.post(`${groups}/${group.id}/rules`, { token: client.token, body: WEB });
    expectError(res, 40944, 409);
    expect(res.body.message).toContain(`#${id}`);
    expect((await platform.api.get(`${groups}/${group.id}`, { token: client.token })).body.data.rules).toHaveLength(1);
  });

  it('passes a terminated service by: group changes go on, and unlinking it only drops the link here', async () => {
    const client = await registerClient(platform);
    const gone = await boundService(client);
    const live = await boundService(client);
    const group = await createGroup(client, { name: 'mixed', rules: [SSH] });
    for (const service of [gone, live]) await platform.api.post(`${services}/${service.id}/security-groups`, { token: client.token, body: { group_id: group.id } });
    await platform.deps.db.models.Service.update({ status: 'terminated' }, { where: { id: gone.id } });
    const deletesBefore = platform.sandbox.control.ledger().moduleActions[`${gone.hostId}:delSecurityRule`] ?? 0;
    expect((await platform.api.post(`${groups}/${group.id}/rules`, { token: client.token, body: WEB })).body.code).toBe(0);
    expect(platform.sandbox.control.ledger().moduleActions[`${gone.hostId}:addSecurityRule`]).toBe(1);
    expect(platform.sandbox.control.ledger().moduleActions[`${live.hostId}:addSecurityRule`]).toBe(2);
    expect((await platform.api.del(`${services}/${gone.id}/security-groups/${group.id}`, { token: client.token })).body.data.linked).toBe(false);
    expect(platform.sandbox.control.ledger().moduleActions[`${gone.hostId}:delSecurityRule`] ?? 0).toBe(deletesBefore);
    expect((await platform.api.get(`${groups}/${group.id}`, { token: client.token })).body.data.service_ids).toEqual([live.id]);
  });

  it('answers 40400 for another user’s group, rule and service (IDOR), and changes nothing', async () => {
    const owner = await registerClient(platform);
    const other = await registerClient(platform);
    const ownerService = await boundService(owner);
    const otherService = await boundService(other);
    const group = await createGroup(owner, { name: 'mine', rules: [SSH] });
    const ruleId = group.rules[0]?.id as number;
    const otherGroup = await createGroup(other, { name: 'theirs' });
    expectError(await platform.api.get(`${groups}/${group.id}`, { token: other.token }), 40400, 404);
    expectError(await platform.api.del(`${groups}/${group.id}`, { token: other.token }), 40400, 404);
    expectError(await platform.api.post(`${groups}/${group.id}/rules`, { token: other.token, body: WEB }), 40400, 404);
    expectError(await platform.api.del(`${groups}/${group.id}/rules/${ruleId}`, { token: other.token }), 40400, 404);
    // The owner's rule through the other user's own group.
    expectError(await platform.api.del(`${groups}/${otherGroup.id}/rules/${ruleId}`, { token: other.token }), 40400, 404);
    // Linking someone else's group to one's own service, and one's own group to someone else's service.
    expectError(await platform.api.post(`${services}/${otherService.id}/security-groups`, { token: other.token, body: { group_id: group.id } }), 40400, 404);
    expectError(await platform.api.post(`${services}/${ownerService.id}/security-groups`, { token: other.token, body: { group_id: otherGroup.id } }), 40400, 404);
    expectError(await platform.api.get(`${services}/${ownerService.id}/security-groups`, { token: other.token }), 40400, 404);
    await platform.api.post(`${services}/${ownerService.id}/security-groups`, { token: owner.token, body: { group_id: group.id } });
    expectError(await platform.api.del(`${services}/${ownerService.id}/security-groups/${group.id}`, { token: other.token }), 40400, 404);
    expectError(await platform.api.del(`${services}/${otherService.id}/security-groups/${group.id}`, { token: other.token }), 40400, 404);
    expect((await platform.api.get(groups, { token: other.token })).body.data.list.map((g: { id: number }) => g.id)).toEqual([otherGroup.id]);
    const mine = await platform.api.get(`${groups}/${group.id}`, { token: owner.token });
    expect(mine.body.data).toMatchObject({ service_ids: [ownerService.id], rules: [expect.objectContaining({ id: ruleId })] });
  });

  it('bounds the groups per user and the groups per service', async () => {
    const client = await registerClient(platform);
    const { id } = await boundService(client);
    const ids: number[] = [];
    for (let i = 0; i < 6; i += 1) ids.push((await createGroup(client, { name: `g${i}` })).id);
    for (const groupId of ids.slice(0, 5)) {
      expect((await platform.api.post(`${services}/${id}/security-groups`, { token: client.token, body: { group_id: groupId } })).body.code).toBe(0);
    }
    expectError(await platform.api.post(`${services}/${id}/security-groups`, { token: client.token, body: { group_id: ids[5] } }), 40950, 409);
    await platform.deps.db.read(
      `INSERT INTO security_groups (user_id, name) SELECT $1, 'bulk-' || n FROM generate_series(1, $2::int) AS n`,
      [client.id, SECURITY_GROUP_LIMITS.groupsPerUser - ids.length],
    );
    expectError(await platform.api.post(groups, { token: client.token, body: { name: 'one too many' } }), 40950, 409);
  });
});
