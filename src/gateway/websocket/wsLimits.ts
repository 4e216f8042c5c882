// The WebSocket endpoint's bounds, with their defaults (the gateway's other limits are in
// gatewayOptions.ts; these are per connection and per API key), and the price of a notification.
import type { ApiKeyTier } from '../../store/types.js';

export interface WebSocketLimits {
  /** Largest message (a JSON-RPC request or batch); larger closes the connection with 1009. Default: the HTTP body limit. */
  maxMessageBytes?: number;
  /** Subscriptions one connection may hold (default 100). */
  maxSubscriptionsPerConnection: number;
  /** Subscriptions all connections of one API key may hold together (default 1,000). */
  maxSubscriptionsPerKey: number;
  /**
   * Open connections one API key may hold at once, per tier (defaults: free 20, payg 200,
   * enterprise 2,000); one more is refused at the upgrade with HTTP 429 and a JSON-RPC -32005.
   */
  maxConnectionsPerKey: Partial<Record<ApiKeyTier, number>>;
  /**
   * Compute units per byte of each subscription notification sent (the hosted provider bills
   * pushes by bandwidth: 0.04 CU a byte, about 40 CU for a 1,000-byte event); 0 makes them free.
   */
  notificationCuPerByte: number;
  /**
   * Answers and notifications waiting for a client that does not read, beyond what the socket
   * holds (`socketHighWaterBytes`); past it the connection is closed with 1008 and a reason.
   */
  maxBufferedBytes: number;
  /** What is written to the socket before further messages wait in the connection's own buffer. */
  socketHighWaterBytes: number;
  /** Messages of one connection answered at once; past it the connection stops reading until some finish. */
  maxInFlightMessages: number;
  /** After a close for cause, how long the client has to finish the closing handshake before the socket is cut. */
  closeGraceMs: number;
}

export const DEFAULT_WEBSOCKET_LIMITS: WebSocketLimits = {
  maxSubscriptionsPerConnection: 100,
  maxSubscriptionsPerKey: 1000,
  maxConnectionsPerKey: { free: 20, payg: 200, enterprise: 2000 },
  notificationCuPerByte: 0.04,
  maxBufferedBytes: 4 * 1024 * 1024,
  socketHighWaterBytes: 256 * 1024,
  maxInFlightMessages: 64,
  closeGraceMs: 2_000,
};
