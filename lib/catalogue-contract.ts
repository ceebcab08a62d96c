/**
 * The catalogue shapes the spec fixes ("Product": pricing; "Config option item") and that more
 * than one layer speaks: the catalogue domain validates and prices them, upstream plugins produce
 * them when they import a supplier's products. Defined once here, below both.
 */

/** The billing periods a product may be priced in (spec "Product": pricing is a flat map keyed by these). */
export const BILLING_PERIODS = ['monthly', 'quarterly', 'semiannually', 'annually', 'biennially', 'triennially', 'onetime'] as const;

export type BillingPeriod = (typeof BILLING_PERIODS)[number];

/** Billing period → two-digit decimal string (spec "Product": pricing is a flat map). */
export type PricingMap = Partial<Record<BillingPeriod, string>>;

/** The fields a config option item may configure (spec "Config option item"). */
export const CONFIG_OPTION_FIELDS = ['cpu', 'memory', 'area', 'os', 'system_disk_size', 'bw', 'ip_num'] as const;

export type ConfigOptionField = (typeof CONFIG_OPTION_FIELDS)[number];

/**
 * A sub-option: a choice of a dropdown-like option, or a price tier of a quantity option. `id` is
 * what a purchase selects (for imported products it is the upstream sub-option id); `pricing`
 * adds to the product's base price for the same period (per unit for quantity options).
 */
export type ConfigSubOption = {
  id: number;
  value: string;
  label: string;
  /** Only for `os`: `<family>^<version>`; the storefront groups systems by the family. */
  version?: string;
  pricing: PricingMap;
  /** Quantity tiers: the range of quantities this tier prices. */
  qty_minimum?: number;
  qty_maximum?: number;
};

export type ConfigOptionItem = {
  field: ConfigOptionField;
  name: string;
  /** Upstream option kinds: 1 dropdown, 2 radio, 3 yes/no, 4 quantity, 5 OS, 6-14 typed, 15-19 stepped quantity. */
  option_type: number;
  hidden: boolean;
  sub: ConfigSubOption[];
  qty_minimum: number;
  qty_maximum: number;
  /** The upstream config option id (`configoption[<parameter>]` when buying); empty for local options. */
  parameter: string;
  unit: string;
};

/** Quantity option kinds (4, and the stepped 15–19): priced per unit, chosen as a number. */
export function isQuantityOptionType(optionType: number): boolean {
  return optionType === 4 || (optionType >= 15 && optionType <= 19);
}
