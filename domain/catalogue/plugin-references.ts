import { registerPluginReference } from '../../plugins/runtime/references.js';
import { publishCatalogueChange } from './catalogue-events.js';

/**
 * Product upstream bindings reference their plugin: uninstalling it is refused while products
 * are bound, and a forced uninstall leaves the bindings without a plugin (the products are
 * then not purchasable online until rebound). Registered by the plugin lifecycle module, which
 * every uninstall goes through.
 */
registerPluginReference({
  name: 'product_upstream_bindings',
  label: '商品上游绑定',
  count: (deps, plugin, transaction) => deps.db.models.ProductUpstreamBinding.count({ where: { plugin_id: plugin.id }, transaction }),
  detach: async (deps, plugin, transaction) => {
    await deps.db.models.ProductUpstreamBinding.update({ plugin_id: null }, { where: { plugin_id: plugin.id }, transaction });
    await publishCatalogueChange(deps, transaction);
  },
});

/** A product's further upstream bindings (migration 0046) reference their plugin the same way. */
registerPluginReference({
  name: 'product_upstream_alternates',
  label: '商品备用上游绑定',
  count: (deps, plugin, transaction) => deps.db.models.ProductUpstreamAlternate.count({ where: { plugin_id: plugin.id }, transaction }),
  detach: async (deps, plugin, transaction) => {
    await deps.db.models.ProductUpstreamAlternate.update({ plugin_id: null }, { where: { plugin_id: plugin.id }, transaction });
    await publishCatalogueChange(deps, transaction);
  },
});
