// @ts-check
/* Shop: products (list, create, edit, delete), the orders of a contact, and all orders (docs/SHOP.md). */
import {
  createProduct,
  deleteProduct,
  listContactOrders,
  listContacts,
  listOrders,
  listProducts,
} from '../api/endpoints.js';
import { errorText } from '../lib/api.js';
import { badge, count, field, fill, h, options, table } from '../lib/dom.js';
import { content, every, setStatus } from '../lib/frame.js';
import { pagedList } from '../lib/paged.js';
import { money, ordersTable, productEditForm } from '../lib/shop.js';
import { deleteButton, smallForm } from '../lib/widgets.js';

export default async function shopPage() {
  const contacts = await listContacts({ limit: 100 });
  const people = contacts.status === 200 ? contacts.body.data : [];
  /** @type {Map<string, string>} */
  const contactNames = new Map(people.map((c) => [c.id, c.name || c.email || c.id]));
  const editBox = h('div', { id: 'product-edit' });
  const contactOrders = h('div', { id: 'contact-orders' });

  const products = pagedList('Products', listProducts, 25, (items) =>
    table(
      ['Product', 'Price', 'State'],
      items.map((p) =>
        h(
          'tr',
          { dataset: { id: p.id } },
          h(
            'td',
            { class: 'product' },
            h('strong', {}, p.name),
            ' ',
            h('code', {}, p.sku),
            h(
              'div',
              { class: 'small-actions' },
              h(
                'button',
                {
                  type: 'button',
                  'aria-label': 'Edit ' + p.name,
                  onclick: () => {
                    fill(
                      editBox,
                      productEditForm(p, async () => {
                        await products.refresh();
                      }),
                    );
                    editBox.querySelector('input')?.focus();
                  },
                },
                'Edit',
              ),
              deleteButton({
                text: 'Delete',
                label: 'Delete ' + p.name,
                remove: () => deleteProduct(p.id),
                ok: 204,
                after: async () => {
                  fill(editBox);
                  await products.refresh();
                },
              }),
            ),
          ),
          h('td', { class: 'price' }, money(p.price, p.currency)),
          h('td', {}, badge(p.active ? 'active' : 'inactive')),
        ),
      ),
      'No product yet.',
      'Products',
    ),
  );
  const newProduct = smallForm(
    'new-product',
    'New product',
    [
      { name: 'name', label: 'Name', required: true },
      { name: 'sku', label: 'SKU (unique: orders name products by it)', required: true },
      { name: 'price', label: 'Price', type: 'number', required: true },
      { name: 'currency', label: 'Currency (ISO 4217, e.g. EUR)', required: true },
      { name: 'description', label: 'Description', type: 'textarea' },
    ],
    'Create product',
    /** @param {{ name: string, sku: string, price: string, currency: string, description: string }} v */
    async (v) => {
      const res = await createProduct({
        name: v.name.trim(),
        sku: v.sku.trim(),
        price: Number(v.price),
        currency: v.currency.trim(),
        ...(v.description.trim() ? { description: v.description.trim() } : {}),
      });
      if (res.status !== 201) return errorText(res);
      await products.refresh();
      return { text: 'Created ' + res.body.name + ' (' + res.body.sku + ').', done: true };
    },
  );
  newProduct.inputs.price.setAttribute('step', '0.01');
  newProduct.inputs.price.setAttribute('min', '0');

  // The orders of one contact: picked from the team's contacts, or from a row of the orders below.
  const picker = h(
    'select',
    { id: 'orders-contact' },
    options([
      ['', 'Choose a contact'],
      ...people.map((c) => /** @type {[string, string]} */ ([c.id, contactNames.get(c.id) || c.id])),
    ]),
  );
  const showOrders = async (/** @type {string} */ contactId) => {
    if (!contactId) return fill(contactOrders);
    picker.value = contactId;
    const res = await listContactOrders(contactId, { limit: 100 });
    if (res.status !== 200) return fill(contactOrders, h('p', { class: 'error', role: 'alert' }, errorText(res)));
    const total = res.body.data.reduce((n, o) => n + o.amount, 0);
    const currencies = [...new Set(res.body.data.map((o) => o.currency))];
    fill(
      contactOrders,
      h(
        'p',
        { class: 'muted', id: 'contact-orders-total' },
        count(res.body.data.length, 'order') +
          (currencies.length === 1 ? ', ' + money(total, currencies[0]) + ' in all' : ''),
      ),
      ordersTable(res.body.data, null, 'Orders of ' + (contactNames.get(contactId) || contactId)),
    );
  };
  picker.addEventListener('change', () => void showOrders(picker.value));

  const orders = pagedList('Orders', listOrders, 25, (items) =>
    ordersTable(
      items,
      (o) =>
        h(
          'button',
          {
            type: 'button',
            class: 'link',
            'aria-label': 'Orders of ' + (contactNames.get(o.contactId) || o.contactId),
            onclick: () => void showOrders(o.contactId),
          },
          contactNames.get(o.contactId) || o.contactId,
        ),
      'Orders',
    ),
  );

  content.replaceChildren(
    h('section', { 'aria-labelledby': 'products-title' }, h('h2', { id: 'products-title' }, 'Products'), products.el),
    editBox,
    newProduct.form,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'contact-orders-title' },
      h('h2', { id: 'contact-orders-title' }, 'Orders of a contact'),
      field('orders-contact', 'Contact', picker),
      contactOrders,
    ),
    h('section', { 'aria-labelledby': 'orders-title' }, h('h2', { id: 'orders-title' }, 'All orders'), orders.el),
  );
  const asked = new URLSearchParams(window.location.search).get('contact');
  if (asked) await showOrders(asked);
  every(5000, async () => {
    const [p, o] = await Promise.all([products.refresh(), orders.refresh()]);
    setStatus(
      count(p.body.data.length, 'product') +
        ' and ' +
        count(o.body.data.length, 'order') +
        ' on these pages · updated ' +
        new Date().toLocaleTimeString(),
    );
  });
}
