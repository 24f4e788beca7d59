// The API registry: every handler the broker serves, by API key. ApiVersions advertises exactly
// these ranges.
import type { ApiHandler } from '../context';
import { alterConfigsHandler, incrementalAlterConfigsHandler } from './alter-configs';
import { apiVersionsHandler } from './api-versions';
import { consumerGroupHeartbeatHandler } from './consumer-group-heartbeat';
import { createPartitionsHandler } from './create-partitions';
import { createTopicsHandler } from './create-topics';
import { deleteRecordsHandler } from './delete-records';
import { deleteTopicsHandler } from './delete-topics';
import { describeClusterHandler } from './describe-cluster';
import { describeConfigsHandler } from './describe-configs';
import { fetchHandler } from './fetch';
import { groupHandlers } from './groups';
import { initProducerIdHandler } from './init-producer-id';
import { listOffsetsHandler } from './list-offsets';
import { metadataHandler } from './metadata';
import { produceHandler } from './produce';

export function createHandlers(): ReadonlyMap<number, ApiHandler> {
  const handlers = new Map<number, ApiHandler>();
  const add = (h: ApiHandler) => {
    if (handlers.has(h.apiKey)) throw new Error(`two handlers for API key ${h.apiKey}`);
    handlers.set(h.apiKey, h);
  };
  [
    produceHandler,
    fetchHandler,
    listOffsetsHandler,
    metadataHandler,
    createTopicsHandler,
    deleteTopicsHandler,
    deleteRecordsHandler,
    initProducerIdHandler,
    describeConfigsHandler,
    alterConfigsHandler,
    createPartitionsHandler,
    incrementalAlterConfigsHandler,
    describeClusterHandler,
    ...groupHandlers,
    consumerGroupHeartbeatHandler,
  ].forEach(add);
  add(apiVersionsHandler(handlers));
  return handlers;
}
