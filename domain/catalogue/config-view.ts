import { type ConfigOptionField, type ConfigOptionItem, groupSystemsByFamily, isQuantityOptionType } from './config-options.js';
import type { PricingMap } from './pricing-map.js';

/**
 * Config options as two flat lists, because responses nest at most three levels below `data`
 * (items → sub-options → pricing would be four). `items` carries one row per option, `choices`
 * one row per sub-option naming its option by `field`; together they rebuild the spec's array.
 */
export type OptionItemView = {
  field: ConfigOptionField;
  name: string;
  option_type: number;
  /** `choice`: select a sub-option id; `quantity`: send a number in qty_minimum..qty_maximum. */
  input: 'choice' | 'quantity';
  hidden: boolean;
  qty_minimum: number;
  qty_maximum: number;
  unit: string;
  /** What a quote uses when the field is not sent: first sub-option id, or the minimum quantity. */
  default_value: number | null;
  choice_count: number;
};

export type OptionItemAdminView = OptionItemView & { parameter: string };

export type ChoiceView = {
  field: ConfigOptionField;
  id: number;
  value: string;
  label: string;
  /** `os` only: the family (part of `version` before `^`) and the version after it. */
  family: string | null;
  version: string | null;
  qty_minimum: number | null;
  qty_maximum: number | null;
  pricing: PricingMap;
};

function itemView(item: ConfigOptionItem): OptionItemView {
  const quantity = isQuantityOptionType(item.option_type);
  return {
    field: item.field,
    name: item.name,
    option_type: item.option_type,
    input: quantity ? 'quantity' : 'choice',
    hidden: item.hidden,
    qty_minimum: item.qty_minimum,
    qty_maximum: item.qty_maximum,
    unit: item.unit,
    default_value: quantity ? item.qty_minimum : (item.sub[0]?.id ?? null),
    choice_count: item.sub.length,
  };
}

function choiceViews(item: ConfigOptionItem): ChoiceView[] {
  return item.sub.map((sub) => {
    const [family, version] = sub.version ? sub.version.split('^') : [null, null];
    return {
      field: item.field,
      id: sub.id,
      value: sub.value,
      label: sub.label,
      family: family ?? null,
      version: version ?? null,
      qty_minimum: sub.qty_minimum ?? null,
      qty_maximum: sub.qty_maximum ?? null,
      pricing: sub.pricing,
    };
  });
}

/** The admin view: every option, with the upstream `parameter`. */
export function adminConfigView(items: ConfigOptionItem[]): { items: OptionItemAdminView[]; choices: ChoiceView[] } {
  return { items: items.map((i) => ({ ...itemView(i), parameter: i.parameter })), choices: items.flatMap(choiceViews) };
}

/** The storefront view: hidden options (and their choices) left out, no upstream parameters. */
export function siteConfigView(items: ConfigOptionItem[]): { items: OptionItemView[]; choices: ChoiceView[]; os_families: Array<{ family: string; choice_ids: number[] }> } {
  const visible = items.filter((i) => !i.hidden);
  const os = visible.find((i) => i.field === 'os');
  return {
    items: visible.map(itemView),
    choices: visible.flatMap(choiceViews),
    os_families: os ? groupSystemsByFamily(os).map((f) => ({ family: f.family, choice_ids: f.systems.map((s) => s.id) })) : [],
  };
}
