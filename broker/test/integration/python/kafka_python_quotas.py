"""kafka-python 2.0.2 (Debian python3-kafka) speaking AlterClientQuotas / DescribeClientQuotas v0.
kafka-python 2.0.2 has no quota methods, so the v0 schemas are declared here with its own protocol
classes (Struct, Schema, Array ...) and sent through KafkaAdminClient: its codec, not minnow's,
encodes the requests and decodes the answers. Prints what each step answered as JSON."""
import json
import struct
import sys

from kafka.admin import KafkaAdminClient
from kafka.protocol.api import Request, Response
from kafka.protocol.types import AbstractType, Array, Boolean, Int8, Int16, Int32, Schema, String


class Float64(AbstractType):
    @classmethod
    def encode(cls, value):
        return struct.pack('>d', value)

    @classmethod
    def decode(cls, data):
        return struct.unpack('>d', data.read(8))[0]


class AlterClientQuotasResponse_v0(Response):
    API_KEY = 49
    API_VERSION = 0
    SCHEMA = Schema(
        ('throttle_time_ms', Int32),
        ('entries', Array(
            ('error_code', Int16),
            ('error_message', String('utf-8')),
            ('entity', Array(('entity_type', String('utf-8')), ('entity_name', String('utf-8')))))),
    )


class AlterClientQuotasRequest_v0(Request):
    API_KEY = 49
    API_VERSION = 0
    RESPONSE_TYPE = AlterClientQuotasResponse_v0
    SCHEMA = Schema(
        ('entries', Array(
            ('entity', Array(('entity_type', String('utf-8')), ('entity_name', String('utf-8')))),
            ('ops', Array(('key', String('utf-8')), ('value', Float64), ('remove', Boolean))))),
        ('validate_only', Boolean),
    )


class DescribeClientQuotasResponse_v0(Response):
    API_KEY = 48
    API_VERSION = 0
    SCHEMA = Schema(
        ('throttle_time_ms', Int32),
        ('error_code', Int16),
        ('error_message', String('utf-8')),
        ('entries', Array(
            ('entity', Array(('entity_type', String('utf-8')), ('entity_name', String('utf-8')))),
            ('values', Array(('key', String('utf-8')), ('value', Float64))))),
    )


class DescribeClientQuotasRequest_v0(Request):
    API_KEY = 48
    API_VERSION = 0
    RESPONSE_TYPE = DescribeClientQuotasResponse_v0
    SCHEMA = Schema(
        ('components', Array(('entity_type', String('utf-8')), ('match_type', Int8), ('match', String('utf-8')))),
        ('strict', Boolean),
    )


admin = KafkaAdminClient(bootstrap_servers=sys.argv[1], request_timeout_ms=20000)


def send(request):
    future = admin._send_request_to_node(admin._client.least_loaded_node(), request)
    admin._wait_for_futures([future])
    return future.value


def alter(entries, validate_only=False):
    r = send(AlterClientQuotasRequest_v0(entries=entries, validate_only=validate_only))
    return [[e[0], e[1], sorted([list(x) for x in e[2]], key=json.dumps)] for e in r.entries]


def describe(components, strict=False):
    r = send(DescribeClientQuotasRequest_v0(components=components, strict=strict))
    entries = None if r.entries is None else sorted(
        [[sorted([list(x) for x in e[0]], key=json.dumps), {k: v for k, v in e[1]}] for e in r.entries], key=json.dumps)
    return {"error": r.error_code, "message": r.error_message, "entries": entries}


out = {}
out["alter"] = alter([
    ([("user", "alice"), ("client-id", "py-app")], [("producer_byte_rate", 1024.0, False)]),
    ([("client-id", None)], [("consumer_byte_rate", 2048.0, False), ("request_percentage", 12.5, False)]),
    ([("ip", None)], [("connection_creation_rate", 30.0, False)]),
    ([("user", "bob")], [("producer_byte_rate", 0.0, False)]),
])
out["validate_only"] = alter([([("client-id", "dry")], [("producer_byte_rate", 5.0, False)])], validate_only=True)
out["all"] = describe([])
out["default_client"] = describe([("client-id", 1, None)], strict=True)
out["user_alice"] = describe([("user", 0, "alice")])
out["bad_filter"] = describe([("group", 0, "g")])
out["removed"] = alter([([("client-id", None)], [("request_percentage", 0.0, True)])])
out["after_remove"] = describe([("client-id", 1, None)], strict=True)
admin.close()
print(json.dumps(out))
