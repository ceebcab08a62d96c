import { formatMoney, parseMoney } from '../../lib/money.js';
import { emptyCounters, findAccount, generateHosts, type SandboxState } from './state.js';
import type { FaultMode, UpstreamFinanceSandboxControl } from './types.js';

export function createSandboxControl(state: SandboxState): UpstreamFinanceSandboxControl {
  return {
    expireTokens() {
      state.tokenGeneration += 1;
    },
    setLatency(ms: number) {
      state.latencyMs = Math.max(0, Math.floor(ms));
    },
    failNext(count: number, mode: FaultMode) {
      state.faults = { remaining: Math.max(0, Math.floor(count)), mode };
    },
    counters() {
      return structuredClone(state.counters);
    },
    resetCounters() {
      state.counters = emptyCounters();
    },
    purchases() {
      return Object.fromEntries(state.purchases);
    },
    seedHosts(count: number, username?: string) {
      findAccount(state, username).hosts = generateHosts(state, count);
    },
    setCredit(amount: string, username?: string) {
      const value = parseMoney(amount);
      if (!value) throw new Error(`invalid amount: ${amount}`);
      findAccount(state, username).credit = formatMoney(value);
    },
  };
}
