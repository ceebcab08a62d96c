import { randomBytes } from 'node:crypto';
import { formString, type FormValue } from './body.js';
import type { SandboxOption } from './catalogue-data.js';
import { pricedProduct } from './prices.js';
import { SANDBOX_MESSAGES } from './messages.js';
import { isCycleOffered, isQuantityOption, priceOrder } from './order-pricing.js';
import type { CartItem, SandboxState } from './state.js';
import type { SandboxAnswer } from './types.js';

const HOSTNAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export function isValidHostPassword(password: string): boolean {
  return password.length >= 8 && password.length <= 32 && /[A-Za-z]/.test(password) && /\d/.test(password) && !/\s/.test(password);
}

export function generateHostPassword(): string {
  return `Sb${randomBytes(9).toString('base64url')}9`;
}

function refuse(msg: string, status = 406): SandboxAnswer {
  return { status, msg, data: {} };
}

/** The chosen value of one option (sent or defaulted), or null when it is not acceptable. */
export function chooseValue(option: SandboxOption, sent: string | undefined): string | null {
  if (isQuantityOption(option)) {
    const qty = sent === undefined ? option.qtyMin : Number(sent);
    return Number.isInteger(qty) && qty >= option.qtyMin && qty <= option.qtyMax ? String(qty) : null;
  }
  if (sent === undefined) return option.subs[0] ? String(option.subs[0].id) : null;
  return option.subs.some((s) => String(s.id) === sent) ? sent : null;
}

/**
 * `/cart/add_to_shop` input checked like the upstream does: the product exists (406
 * otherwise), the cycle is sold, every `configoption[<id>]` is an option of the product with
 * a valid sub-option id or quantity (missing ones take their default), hostname and password
 * are well formed, and there is stock (a business error, status 400, otherwise).
 */
export function buildCartItem(state: SandboxState, body: Record<string, FormValue>): CartItem | SandboxAnswer {
  const product = pricedProduct(state.prices, Number(formString(body, 'pid')));
  if (!product) return refuse(SANDBOX_MESSAGES.productGone);
  const cycle = formString(body, 'billingcycle') ?? '';
  if (!isCycleOffered(product, cycle)) return refuse(SANDBOX_MESSAGES.cycleInvalid);
  const qty = formString(body, 'qty') ?? '1';
  if (qty !== '1') return refuse(SANDBOX_MESSAGES.badParam);
  const sent = body['configoption'] ?? {};
  if (typeof sent !== 'object' || Array.isArray(sent)) return refuse(SANDBOX_MESSAGES.optionInvalid);
  const options = product.configGroups.flatMap((group) => group.options);
  for (const id of Object.keys(sent)) {
    if (!options.some((option) => String(option.id) === id)) return refuse(SANDBOX_MESSAGES.optionInvalid);
  }
  const config: Record<string, string> = {};
  for (const option of options) {
    const raw = sent[String(option.id)];
    const value = chooseValue(option, typeof raw === 'string' ? raw.trim() : undefined);
    if (value === null || (raw !== undefined && typeof raw !== 'string')) return refuse(SANDBOX_MESSAGES.optionValueInvalid);
    config[String(option.id)] = value;
  }
  const hostname = formString(body, 'hostname')?.trim() ?? '';
  if (hostname !== '' && (hostname.length > 253 || !HOSTNAME.test(hostname))) return refuse(SANDBOX_MESSAGES.hostnameInvalid);
  const password = formString(body, 'password') ?? '';
  if (password !== '' && !isValidHostPassword(password)) return refuse(SANDBOX_MESSAGES.passwordInvalid);
  const stock = state.stock.get(product.id);
  if (stock?.control && stock.qty < 1) return refuse(SANDBOX_MESSAGES.outOfStock, 400);
  return { productId: product.id, cycle, config, hostname, password, amount: priceOrder(product, cycle, config) };
}
