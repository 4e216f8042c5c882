// Test worker for startWorker: answers each message with its workerData and the message.
import { parentPort, workerData } from 'node:worker_threads';

parentPort!.on('message', (message: unknown) => parentPort!.postMessage({ workerData, message }));
