import type { ConfigOptionItem } from '../../../../lib/catalogue-contract.js';
import { asArray, asBool, asInt, asRecord, asString } from '../read.js';
import { DEFAULT_UNITS, isQuantityOptionType, resolveOptionField } from './option-field.js';
import { normaliseSubOption, splitValueLabel, type ConfigSubOption } from './sub-option.js';

export type { ConfigOptionItem };

export type SkippedOption = { upstream_id: number | null; name: string };

export type OptionOutcome = { item: ConfigOptionItem } | { skipped: SkippedOption };

export function normaliseConfigOption(raw: unknown): OptionOutcome {
  const option = asRecord(raw) ?? {};
  const id = asInt(option['id']);
  const optionName = asString(option['option_name']) ?? '';
  const optionType = asInt(option['option_type']) ?? 1;
  const [rawField, label] = optionName.includes('|') ? splitValueLabel(optionName) : [null, optionName.trim()];
  const field = resolveOptionField(rawField, optionType);
  if (id === null || field === null) return { skipped: { upstream_id: id, name: label } };
  const quantity = isQuantityOptionType(optionType);
  const sub = asArray(option['sub'])
    .map((s) => normaliseSubOption(s, field, quantity))
    .filter((s): s is ConfigSubOption => s !== null);
  return {
    item: {
      field,
      name: label || field,
      option_type: optionType,
      hidden: asBool(option['hidden']),
      sub,
      qty_minimum: asInt(option['qty_minimum']) ?? 0,
      qty_maximum: asInt(option['qty_maximum']) ?? 0,
      parameter: String(id),
      unit: asString(option['unit'])?.trim() || DEFAULT_UNITS[field],
    },
  };
}
