/** Topics and groups of the sample (RocketMQ names: `[%|a-zA-Z0-9_-]`). */
export const ORDERS_TOPIC = 'sample-nest-orders';
export const SHIPMENTS_TOPIC = 'sample-nest-shipments';
export const ORDERS_GROUP = 'sample-nest-billing';
export const SHIPPING_GROUP = 'sample-nest-shipping';
export const PRODUCER_GROUP = 'sample-nest-producer';
