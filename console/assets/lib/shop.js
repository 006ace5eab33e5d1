// @ts-check
/* The Shop page's parts: a product's edit form, and orders as a table (docs/SHOP.md). */
import { updateProduct } from '../api/endpoints.js';
import { errorText } from './api.js';
import { field, h, table, when } from './dom.js';
/** @import { Item, Ok } from '../api/types' */
/** @typedef {Item<'/orders'>} Order */
/** @typedef {Ok<'/products/{productId}', 'patch'>} Product */

/** An amount in its currency: "25.00 EUR". */
export const money = (/** @type {number} */ amount, /** @type {string} */ currency) =>
  amount.toFixed(2) + ' ' + currency;

/**
 * A product's edit form: name, price, currency, description, active (its sku names it in orders: kept).
 * @param {Product} p
 * @param {(saved: Product) => unknown} saved
 */
export function productEditForm(p, saved) {
  const id = (/** @type {string} */ n) => 'edit-product-' + n;
  const name = h('input', { type: 'text', id: id('name'), value: p.name, required: true, maxlength: 200 });
  const price = h('input', { type: 'number', id: id('price'), value: String(p.price), min: 0, step: '0.01' });
  const currency = h('input', { type: 'text', id: id('currency'), value: p.currency, maxlength: 3 });
  const description = h('textarea', { id: id('description') });
  description.value = p.description || '';
  const active = h('input', { type: 'checkbox', id: id('active'), checked: p.active });
  const outcome = h('p', { role: 'status', class: 'outcome' });
  return h(
    'form',
    {
      class: 'card',
      id: 'product-edit-form',
      'aria-labelledby': 'product-edit-title',
      onsubmit: async (/** @type {Event} */ ev) => {
        ev.preventDefault();
        const res = await updateProduct(p.id, {
          name: name.value.trim(),
          price: Number(price.value),
          currency: currency.value.trim(),
          description: description.value.trim() || null,
          active: active.checked,
        });
        if (res.status !== 200) return (outcome.textContent = errorText(res));
        outcome.textContent = 'Saved.';
        await saved(res.body);
      },
    },
    h('h2', { id: 'product-edit-title' }, 'Edit ' + p.name + ' (' + p.sku + ')'),
    field(name.id, 'Name', name),
    field(price.id, 'Price', price),
    field(currency.id, 'Currency (ISO 4217)', currency),
    field(description.id, 'Description', description),
    h('label', { class: 'check', for: active.id }, active, ' Active (an inactive product cannot be ordered)'),
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Save product')),
    outcome,
  );
}

/**
 * Orders as a table; `contact(order)` draws the contact cell (or null to leave the column out).
 * @param {Order[]} orders
 * @param {((o: Order) => import('./types').Child) | null} contact
 * @param {string} label
 */
export function ordersTable(orders, contact, label) {
  return table(
    [...(contact ? ['Contact'] : []), 'Ordered', 'Items', 'Amount', 'Number', 'Source'],
    orders.map((o) =>
      h(
        'tr',
        { dataset: { id: o.id } },
        contact ? h('td', { class: 'contact' }, contact(o)) : null,
        h('td', {}, when(o.orderedAt)),
        h(
          'td',
          { class: 'items' },
          o.items.map((i) => i.quantity + ' × ' + (i.name || i.sku || 'item')).join(', ') || '—',
        ),
        h('td', { class: 'amount' }, money(o.amount, o.currency)),
        h('td', {}, o.externalId || ''),
        h('td', {}, o.source),
      ),
    ),
    'No order yet.',
    label,
  );
}
