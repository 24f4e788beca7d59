// Kafka 3.9 broker config documentation for the broker configs minnow reports (DescribeConfigs v3+):
// the *_DOC texts of Kafka's ServerLogConfigs, ServerConfigs, ReplicationConfigs, SocketServerConfigs,
// KRaftConfigs and GroupCoordinatorConfig (Apache Kafka, Apache License 2.0) at commit 1eb7644.
// Where Kafka keeps the text elsewhere (log cleaner, remote log manager) its topic config's text is used;
// a broker config named like a topic config (min.insync.replicas, compression.type ...) shares its text
// (broker-configs.ts looks it up in TOPIC_CONFIG_DOCS).

export const BROKER_CONFIG_DOCS: Readonly<Record<string, string>> = {
  'broker.id':
    "The broker id for this server. If unset, a unique broker id will be generated.To avoid conflicts between ZooKeeper generated broker id's and user configured broker id's, generated broker ids start from reserved.broker.max.id + 1.",
  'node.id':
    'The node ID associated with the roles this process is playing when <code>process.roles</code> is non-empty. This is required configuration when running in KRaft mode.',
  'auto.create.topics.enable': 'Enable auto creation of topic on the server.',
  'num.partitions': 'The default number of log partitions per topic',
  'default.replication.factor':
    'The replication factor for automatically created topics, and for topics created with -1 as the replication factor',
  'log.retention.check.interval.ms':
    'The frequency in milliseconds that the log cleaner checks whether any log is eligible for deletion',
  'log.cleaner.backoff.ms': 'The amount of time to sleep when there are no logs to clean',
  'log.cleaner.dedupe.buffer.size': 'The total memory used for log deduplication across all cleaner threads',
  'socket.request.max.bytes': 'The maximum number of bytes in a socket request',
  'ssl.client.auth':
    'Configures kafka broker to request client authentication. The following settings are common:  <ul> <li><code>ssl.client.auth=required</code> If set to required client authentication is required. <li><code>ssl.client.auth=requested</code> This means client authentication is optional. unlike required, if this option is set client can choose not to provide authentication information about itself <li><code>ssl.client.auth=none</code> This means client authentication is not needed.</ul>',
  'queued.max.request.bytes': 'The number of queued bytes allowed before no more requests are read',
  'connections.max.idle.ms':
    'Idle connections timeout: the server socket processor threads close the connections that idle more than this',
  'max.connections':
    'The maximum number of connections we allow in the broker at any time. This limit is applied in addition to any per-ip limits configured using max.connections.per.ip. Listener-level limits may also be configured by prefixing the config name with the listener prefix, for example, <code>listener.name.internal.max.connections.per.ip</code>. Broker-wide limit should be configured based on broker capacity while listener limits should be configured based on application requirements. New connections are blocked if either the listener or broker limit is reached. Connections on the inter-broker listener are permitted even if broker-wide limit is reached. The least recently used connection on another listener will be closed in this case.',
  'max.connections.per.ip':
    'The maximum number of connections we allow from each ip address. This can be set to 0 if there are overrides configured using max.connections.per.ip.overrides property. New connections from the ip address are dropped if the limit is reached.',
  'group.initial.rebalance.delay.ms':
    'The amount of time the group coordinator will wait for more consumers to join a new group before performing the first rebalance. A longer delay means potentially fewer rebalances, but increases the time until processing begins.',
  // TransactionStateManagerConfig
  'transaction.max.timeout.ms':
    'The maximum allowed timeout for transactions. If a client’s requested transaction time exceed this, then the broker will return an error in InitProducerIdRequest. This prevents a client from too large of a timeout, which can stall consumers reading from topics included in the transaction.',
  'transactional.id.expiration.ms':
    'The time in ms that the transaction coordinator will wait without receiving any transaction status updates for the current transaction before expiring its transactional id. Transactional IDs will not expire while a the transaction is still ongoing.',
  'transaction.abort.timed.out.transaction.cleanup.interval.ms':
    'The interval at which to rollback transactions that have timed out',
  'quota.window.num': 'The number of samples to retain in memory for client quotas',
  'quota.window.size.seconds': 'The time span of each sample for client quotas',
  'fetch.max.bytes': 'The maximum number of bytes we will return for a fetch request. Must be at least 1024.',
  'log.segment.bytes': 'The maximum size of a single log file',
  'log.roll.ms':
    'The maximum time before a new log segment is rolled out (in milliseconds). If not set, the value in log.roll.hours is used',
  'log.roll.hours':
    'The maximum time before a new log segment is rolled out (in hours), secondary to log.roll.ms property',
  'log.roll.jitter.ms':
    'The maximum jitter to subtract from logRollTimeMillis (in milliseconds). If not set, the value in log.roll.jitter.hours is used',
  'log.roll.jitter.hours':
    'The maximum jitter to subtract from logRollTimeMillis (in hours), secondary to log.roll.jitter.ms property',
  'log.index.size.max.bytes': 'The maximum size in bytes of the offset index',
  'log.flush.interval.messages':
    'The number of messages accumulated on a log partition before messages are flushed to disk.',
  'log.flush.interval.ms':
    'The maximum time in ms that a message in any topic is kept in memory before flushed to disk. If not set, the value in log.flush.scheduler.interval.ms is used',
  'log.flush.scheduler.interval.ms':
    'The frequency in ms that the log flusher checks whether any log needs to be flushed to disk',
  'log.retention.bytes': 'The maximum size of the log before deleting it',
  'log.retention.ms':
    'The number of milliseconds to keep a log file before deleting it (in milliseconds), If not set, the value in log.retention.minutes is used. If set to -1, no time limit is applied.',
  'log.retention.minutes':
    'The number of minutes to keep a log file before deleting it (in minutes), secondary to log.retention.ms property. If not set, the value in log.retention.hours is used',
  'log.retention.hours':
    'The number of hours to keep a log file before deleting it (in hours), tertiary to log.retention.ms property',
  'message.max.bytes':
    "The largest record batch size allowed by Kafka (after compression if compression is enabled). If this is increased and there are consumers older than 0.10.2, the consumers' fetch size must also be increased so that they can fetch record batches this large. In the latest message format version, records are always grouped into batches for efficiency. In previous message format versions, uncompressed records are not grouped into batches and this limit only applies to a single record in that case.This can be set per topic with the topic level <code>max.message.bytes</code> config.",
  'log.index.interval.bytes': 'The interval with which we add an entry to the offset index.',
  'log.segment.delete.delay.ms':
    'The amount of time to wait before deleting a file from the filesystem. If the value is 0 and there is no file to delete, the system will wait 1 millisecond. Low value will cause busy waiting',
  'log.cleanup.policy':
    'The default cleanup policy for segments beyond the retention window. A comma separated list of valid policies. Valid policies are: "delete" and "compact"',
  'log.message.format.version':
    "Specify the message format version the broker will use to append messages to the logs. The value should be a valid MetadataVersion. Some examples are: 0.8.2, 0.9.0.0, 0.10.0, check MetadataVersion for more details. By setting a particular message format version, the user is certifying that all the existing messages on disk are smaller or equal than the specified version. Setting this value incorrectly will cause consumers with older versions to break as they will receive messages with a format that they don't understand.",
  'log.message.timestamp.type':
    'Define whether the timestamp in the message is message create time or log append time. The value should be either <code>CreateTime</code> or <code>LogAppendTime</code>.',
  'log.message.timestamp.difference.max.ms':
    '[DEPRECATED] The maximum difference allowed between the timestamp when a broker receives a message and the timestamp specified in the message. If log.message.timestamp.type=CreateTime, a message will be rejected if the difference in timestamp exceeds this threshold. This configuration is ignored if log.message.timestamp.type=LogAppendTime.The maximum timestamp difference allowed should be no greater than log.retention.ms to avoid unnecessarily frequent log rolling.',
  'log.message.timestamp.before.max.ms':
    "This configuration sets the allowable timestamp difference between the broker's timestamp and the message timestamp. The message timestamp can be earlier than or equal to the broker's timestamp, with the maximum allowable difference determined by the value set in this configuration. If log.message.timestamp.type=CreateTime, the message will be rejected if the difference in timestamps exceeds this specified threshold. This configuration is ignored if log.message.timestamp.type=LogAppendTime.",
  'log.message.timestamp.after.max.ms':
    "This configuration sets the allowable timestamp difference between the message timestamp and the broker's timestamp. The message timestamp can be later than or equal to the broker's timestamp, with the maximum allowable difference determined by the value set in this configuration. If log.message.timestamp.type=CreateTime, the message will be rejected if the difference in timestamps exceeds this specified threshold. This configuration is ignored if log.message.timestamp.type=LogAppendTime.",
  'log.message.downconversion.enable':
    'This configuration controls whether down-conversion of message formats is enabled to satisfy consume requests. When set to <code>false</code>, broker will not perform down-conversion for consumers expecting an older message format. The broker responds with <code>UNSUPPORTED_VERSION</code> error for consume requests from such older clients. This configurationdoes not apply to any message format conversion that might be required for replication to followers.',
  // BrokerSecurityConfigs and SocketServerConfigs (the SASL configs minnow reports).
  'sasl.enabled.mechanisms':
    'The list of SASL mechanisms enabled in the Kafka server. The list may contain any mechanism for which a security provider is available. Only GSSAPI is enabled by default.',
  'connections.max.reauth.ms':
    'When explicitly set to a positive number (the default is 0, not a positive number), a session lifetime that will not exceed the configured value will be communicated to v2.2.0 or later clients when they authenticate. The broker will disconnect any such connection that is not re-authenticated within the session lifetime and that is then subsequently used for any purpose other than re-authentication. Configuration names can optionally be prefixed with listener prefix and SASL mechanism name in lower-case. For example, listener.name.sasl_ssl.oauthbearer.connections.max.reauth.ms=3600000',
  'connection.failed.authentication.delay.ms':
    'Connection close delay on failed authentication: this is the time (in milliseconds) by which connection close will be delayed on authentication failure. This must be configured to be less than connections.max.idle.ms to prevent connection timeout.',
};
