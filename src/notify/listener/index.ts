// `tracehook/listener`: verify and receive Tracehook webhook notifications in your own service.
export { verifySignature, verifyStandardWebhook, type StandardWebhookHeaders } from './verifySignature.js';
export { parseNotification, isNotification, type Notification } from './parseNotification.js';
export { handleNotification, SIGNATURE_HEADER, type ListenerOptions, type ListenerReply, type NotificationContext } from './handleNotification.js';
export { createNodeListener, handleNodeRequest } from './nodeListener.js';
export { expressListener, BodyAlreadyParsedError, type ExpressLikeRequest } from './expressListener.js';
export { fastifyListener, type FastifyLikeInstance } from './fastifyListener.js';
export { honoListener, type HonoLikeContext } from './honoListener.js';
