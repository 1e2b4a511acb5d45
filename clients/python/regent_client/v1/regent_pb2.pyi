from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LeaderKey(_message.Message):
    __slots__ = ("name", "value", "token", "lease")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: bytes
    token: int
    lease: int
    def __init__(self, name: _Optional[str] = ..., value: _Optional[bytes] = ..., token: _Optional[int] = ..., lease: _Optional[int] = ...) -> None: ...

class LeaseGrantRequest(_message.Message):
    __slots__ = ("ttl_ms", "tenant", "request_id")
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ttl_ms: int
    tenant: str
    request_id: str
    def __init__(self, ttl_ms: _Optional[int] = ..., tenant: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class LeaseGrantResponse(_message.Message):
    __slots__ = ("id", "ttl_ms")
    ID_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    id: int
    ttl_ms: int
    def __init__(self, id: _Optional[int] = ..., ttl_ms: _Optional[int] = ...) -> None: ...

class LeaseRevokeRequest(_message.Message):
    __slots__ = ("id", "request_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    request_id: str
    def __init__(self, id: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class LeaseRevokeResponse(_message.Message):
    __slots__ = ("index",)
    INDEX_FIELD_NUMBER: _ClassVar[int]
    index: int
    def __init__(self, index: _Optional[int] = ...) -> None: ...

class LeaseKeepAliveRequest(_message.Message):
    __slots__ = ("id", "tag")
    ID_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    id: int
    tag: int
    def __init__(self, id: _Optional[int] = ..., tag: _Optional[int] = ...) -> None: ...

class LeaseKeepAliveResponse(_message.Message):
    __slots__ = ("id", "ttl_ms", "code", "message", "tag", "node_clock_ms", "node", "node_started_ms")
    ID_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    NODE_CLOCK_MS_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    NODE_STARTED_MS_FIELD_NUMBER: _ClassVar[int]
    id: int
    ttl_ms: int
    code: int
    message: str
    tag: int
    node_clock_ms: int
    node: str
    node_started_ms: int
    def __init__(self, id: _Optional[int] = ..., ttl_ms: _Optional[int] = ..., code: _Optional[int] = ..., message: _Optional[str] = ..., tag: _Optional[int] = ..., node_clock_ms: _Optional[int] = ..., node: _Optional[str] = ..., node_started_ms: _Optional[int] = ...) -> None: ...

class LeaseKeepAliveManyRequest(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, ids: _Optional[_Iterable[int]] = ...) -> None: ...

class LeaseKeepAliveManyResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[LeaseKeepAliveResponse]
    def __init__(self, results: _Optional[_Iterable[_Union[LeaseKeepAliveResponse, _Mapping]]] = ...) -> None: ...

class LeaseTimeToLiveRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class LeaseTimeToLiveResponse(_message.Message):
    __slots__ = ("id", "ttl_ms", "remaining_ms", "names")
    ID_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    REMAINING_MS_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    id: int
    ttl_ms: int
    remaining_ms: int
    names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[int] = ..., ttl_ms: _Optional[int] = ..., remaining_ms: _Optional[int] = ..., names: _Optional[_Iterable[str]] = ...) -> None: ...

class LeaseLeasesRequest(_message.Message):
    __slots__ = ("serializable",)
    SERIALIZABLE_FIELD_NUMBER: _ClassVar[int]
    serializable: bool
    def __init__(self, serializable: bool = ...) -> None: ...

class LeaseLeasesResponse(_message.Message):
    __slots__ = ("leases", "applied_index")
    LEASES_FIELD_NUMBER: _ClassVar[int]
    APPLIED_INDEX_FIELD_NUMBER: _ClassVar[int]
    leases: _containers.RepeatedCompositeFieldContainer[LeaseInfo]
    applied_index: int
    def __init__(self, leases: _Optional[_Iterable[_Union[LeaseInfo, _Mapping]]] = ..., applied_index: _Optional[int] = ...) -> None: ...

class LeaseInfo(_message.Message):
    __slots__ = ("id", "ttl_ms", "names")
    ID_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    id: int
    ttl_ms: int
    names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[int] = ..., ttl_ms: _Optional[int] = ..., names: _Optional[_Iterable[str]] = ...) -> None: ...

class CampaignRequest(_message.Message):
    __slots__ = ("name", "lease", "value", "no_wait", "lock_delay_ms", "ttl_ms", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    NO_WAIT_FIELD_NUMBER: _ClassVar[int]
    LOCK_DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    lease: int
    value: bytes
    no_wait: bool
    lock_delay_ms: int
    ttl_ms: int
    request_id: str
    def __init__(self, name: _Optional[str] = ..., lease: _Optional[int] = ..., value: _Optional[bytes] = ..., no_wait: bool = ..., lock_delay_ms: _Optional[int] = ..., ttl_ms: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class CampaignResponse(_message.Message):
    __slots__ = ("elected", "leader", "lease")
    ELECTED_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    elected: bool
    leader: LeaderKey
    lease: int
    def __init__(self, elected: bool = ..., leader: _Optional[_Union[LeaderKey, _Mapping]] = ..., lease: _Optional[int] = ...) -> None: ...

class CampaignAllRequest(_message.Message):
    __slots__ = ("names", "lease", "value", "request_id")
    NAMES_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    names: _containers.RepeatedScalarFieldContainer[str]
    lease: int
    value: bytes
    request_id: str
    def __init__(self, names: _Optional[_Iterable[str]] = ..., lease: _Optional[int] = ..., value: _Optional[bytes] = ..., request_id: _Optional[str] = ...) -> None: ...

class CampaignAllResponse(_message.Message):
    __slots__ = ("leaders",)
    LEADERS_FIELD_NUMBER: _ClassVar[int]
    leaders: _containers.RepeatedCompositeFieldContainer[LeaderKey]
    def __init__(self, leaders: _Optional[_Iterable[_Union[LeaderKey, _Mapping]]] = ...) -> None: ...

class ProclaimRequest(_message.Message):
    __slots__ = ("leader", "value", "request_id")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    leader: LeaderKey
    value: bytes
    request_id: str
    def __init__(self, leader: _Optional[_Union[LeaderKey, _Mapping]] = ..., value: _Optional[bytes] = ..., request_id: _Optional[str] = ...) -> None: ...

class ProclaimResponse(_message.Message):
    __slots__ = ("leader",)
    LEADER_FIELD_NUMBER: _ClassVar[int]
    leader: LeaderKey
    def __init__(self, leader: _Optional[_Union[LeaderKey, _Mapping]] = ...) -> None: ...

class ResignRequest(_message.Message):
    __slots__ = ("leader", "revoke_lease", "request_id")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    REVOKE_LEASE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    leader: LeaderKey
    revoke_lease: bool
    request_id: str
    def __init__(self, leader: _Optional[_Union[LeaderKey, _Mapping]] = ..., revoke_lease: bool = ..., request_id: _Optional[str] = ...) -> None: ...

class ResignResponse(_message.Message):
    __slots__ = ("index",)
    INDEX_FIELD_NUMBER: _ClassVar[int]
    index: int
    def __init__(self, index: _Optional[int] = ...) -> None: ...

class LeaderRequest(_message.Message):
    __slots__ = ("name", "serializable")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SERIALIZABLE_FIELD_NUMBER: _ClassVar[int]
    name: str
    serializable: bool
    def __init__(self, name: _Optional[str] = ..., serializable: bool = ...) -> None: ...

class LeaderResponse(_message.Message):
    __slots__ = ("leader", "applied_index")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    APPLIED_INDEX_FIELD_NUMBER: _ClassVar[int]
    leader: LeaderKey
    applied_index: int
    def __init__(self, leader: _Optional[_Union[LeaderKey, _Mapping]] = ..., applied_index: _Optional[int] = ...) -> None: ...

class FreshTokenRequest(_message.Message):
    __slots__ = ("leader", "request_id")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    leader: LeaderKey
    request_id: str
    def __init__(self, leader: _Optional[_Union[LeaderKey, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class FreshTokenResponse(_message.Message):
    __slots__ = ("leader",)
    LEADER_FIELD_NUMBER: _ClassVar[int]
    leader: LeaderKey
    def __init__(self, leader: _Optional[_Union[LeaderKey, _Mapping]] = ...) -> None: ...

class ObserveRequest(_message.Message):
    __slots__ = ("name", "after_index", "after_ordinal")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AFTER_INDEX_FIELD_NUMBER: _ClassVar[int]
    AFTER_ORDINAL_FIELD_NUMBER: _ClassVar[int]
    name: str
    after_index: int
    after_ordinal: int
    def __init__(self, name: _Optional[str] = ..., after_index: _Optional[int] = ..., after_ordinal: _Optional[int] = ...) -> None: ...

class ObserveResponse(_message.Message):
    __slots__ = ("kind", "name", "leader", "index", "compacted", "ordinal")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CURRENT: _ClassVar[ObserveResponse.Kind]
        ELECTED: _ClassVar[ObserveResponse.Kind]
        PROCLAIMED: _ClassVar[ObserveResponse.Kind]
        RESIGNED: _ClassVar[ObserveResponse.Kind]
        EXPIRED: _ClassVar[ObserveResponse.Kind]
        REVOKED: _ClassVar[ObserveResponse.Kind]
        TOKEN_REFRESHED: _ClassVar[ObserveResponse.Kind]
    CURRENT: ObserveResponse.Kind
    ELECTED: ObserveResponse.Kind
    PROCLAIMED: ObserveResponse.Kind
    RESIGNED: ObserveResponse.Kind
    EXPIRED: ObserveResponse.Kind
    REVOKED: ObserveResponse.Kind
    TOKEN_REFRESHED: ObserveResponse.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    COMPACTED_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    kind: ObserveResponse.Kind
    name: str
    leader: LeaderKey
    index: int
    compacted: bool
    ordinal: int
    def __init__(self, kind: _Optional[_Union[ObserveResponse.Kind, str]] = ..., name: _Optional[str] = ..., leader: _Optional[_Union[LeaderKey, _Mapping]] = ..., index: _Optional[int] = ..., compacted: bool = ..., ordinal: _Optional[int] = ...) -> None: ...

class LockRequest(_message.Message):
    __slots__ = ("name", "lease", "owner", "lock_delay_ms", "ttl_ms", "request_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    LOCK_DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    lease: int
    owner: bytes
    lock_delay_ms: int
    ttl_ms: int
    request_id: str
    def __init__(self, name: _Optional[str] = ..., lease: _Optional[int] = ..., owner: _Optional[bytes] = ..., lock_delay_ms: _Optional[int] = ..., ttl_ms: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class LockResponse(_message.Message):
    __slots__ = ("key", "lease")
    KEY_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    key: LeaderKey
    lease: int
    def __init__(self, key: _Optional[_Union[LeaderKey, _Mapping]] = ..., lease: _Optional[int] = ...) -> None: ...

class UnlockRequest(_message.Message):
    __slots__ = ("key", "revoke_lease", "request_id")
    KEY_FIELD_NUMBER: _ClassVar[int]
    REVOKE_LEASE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    key: LeaderKey
    revoke_lease: bool
    request_id: str
    def __init__(self, key: _Optional[_Union[LeaderKey, _Mapping]] = ..., revoke_lease: bool = ..., request_id: _Optional[str] = ...) -> None: ...

class UnlockResponse(_message.Message):
    __slots__ = ("index",)
    INDEX_FIELD_NUMBER: _ClassVar[int]
    index: int
    def __init__(self, index: _Optional[int] = ...) -> None: ...

class StatusRequest(_message.Message):
    __slots__ = ("serializable",)
    SERIALIZABLE_FIELD_NUMBER: _ClassVar[int]
    serializable: bool
    def __init__(self, serializable: bool = ...) -> None: ...

class Member(_message.Message):
    __slots__ = ("id", "address", "api_address", "role", "replication")
    class Role(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        VOTER: _ClassVar[Member.Role]
        LEARNER: _ClassVar[Member.Role]
    VOTER: Member.Role
    LEARNER: Member.Role
    ID_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    API_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    REPLICATION_FIELD_NUMBER: _ClassVar[int]
    id: str
    address: str
    api_address: str
    role: Member.Role
    replication: Replication
    def __init__(self, id: _Optional[str] = ..., address: _Optional[str] = ..., api_address: _Optional[str] = ..., role: _Optional[_Union[Member.Role, str]] = ..., replication: _Optional[_Union[Replication, _Mapping]] = ...) -> None: ...

class Replication(_message.Message):
    __slots__ = ("match_index", "lag_entries", "lag_seconds")
    MATCH_INDEX_FIELD_NUMBER: _ClassVar[int]
    LAG_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    LAG_SECONDS_FIELD_NUMBER: _ClassVar[int]
    match_index: int
    lag_entries: int
    lag_seconds: float
    def __init__(self, match_index: _Optional[int] = ..., lag_entries: _Optional[int] = ..., lag_seconds: _Optional[float] = ...) -> None: ...

class StatusResponse(_message.Message):
    __slots__ = ("node", "leader", "term", "commit_index", "applied_index", "members", "role", "version", "db_size_bytes", "console_url", "etcd_address", "degraded", "kv", "cells")
    NODE_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    COMMIT_INDEX_FIELD_NUMBER: _ClassVar[int]
    APPLIED_INDEX_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DB_SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    CONSOLE_URL_FIELD_NUMBER: _ClassVar[int]
    ETCD_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_FIELD_NUMBER: _ClassVar[int]
    KV_FIELD_NUMBER: _ClassVar[int]
    CELLS_FIELD_NUMBER: _ClassVar[int]
    node: str
    leader: str
    term: int
    commit_index: int
    applied_index: int
    members: _containers.RepeatedCompositeFieldContainer[Member]
    role: str
    version: str
    db_size_bytes: int
    console_url: str
    etcd_address: str
    degraded: str
    kv: KvStats
    cells: _containers.RepeatedCompositeFieldContainer[CellStatus]
    def __init__(self, node: _Optional[str] = ..., leader: _Optional[str] = ..., term: _Optional[int] = ..., commit_index: _Optional[int] = ..., applied_index: _Optional[int] = ..., members: _Optional[_Iterable[_Union[Member, _Mapping]]] = ..., role: _Optional[str] = ..., version: _Optional[str] = ..., db_size_bytes: _Optional[int] = ..., console_url: _Optional[str] = ..., etcd_address: _Optional[str] = ..., degraded: _Optional[str] = ..., kv: _Optional[_Union[KvStats, _Mapping]] = ..., cells: _Optional[_Iterable[_Union[CellStatus, _Mapping]]] = ...) -> None: ...

class CellStatus(_message.Message):
    __slots__ = ("cell", "leader", "term", "commit_index", "applied_index", "role")
    CELL_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    COMMIT_INDEX_FIELD_NUMBER: _ClassVar[int]
    APPLIED_INDEX_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    cell: int
    leader: str
    term: int
    commit_index: int
    applied_index: int
    role: str
    def __init__(self, cell: _Optional[int] = ..., leader: _Optional[str] = ..., term: _Optional[int] = ..., commit_index: _Optional[int] = ..., applied_index: _Optional[int] = ..., role: _Optional[str] = ...) -> None: ...

class KvStats(_message.Message):
    __slots__ = ("keys", "bytes", "watchers")
    KEYS_FIELD_NUMBER: _ClassVar[int]
    BYTES_FIELD_NUMBER: _ClassVar[int]
    WATCHERS_FIELD_NUMBER: _ClassVar[int]
    keys: int
    bytes: int
    watchers: int
    def __init__(self, keys: _Optional[int] = ..., bytes: _Optional[int] = ..., watchers: _Optional[int] = ...) -> None: ...

class MemberListRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class MemberListResponse(_message.Message):
    __slots__ = ("members", "leader")
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    members: _containers.RepeatedCompositeFieldContainer[Member]
    leader: str
    def __init__(self, members: _Optional[_Iterable[_Union[Member, _Mapping]]] = ..., leader: _Optional[str] = ...) -> None: ...

class MemberAddRequest(_message.Message):
    __slots__ = ("id", "raft_address", "api_address")
    ID_FIELD_NUMBER: _ClassVar[int]
    RAFT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    API_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    id: str
    raft_address: str
    api_address: str
    def __init__(self, id: _Optional[str] = ..., raft_address: _Optional[str] = ..., api_address: _Optional[str] = ...) -> None: ...

class MemberAddResponse(_message.Message):
    __slots__ = ("members",)
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    members: _containers.RepeatedCompositeFieldContainer[Member]
    def __init__(self, members: _Optional[_Iterable[_Union[Member, _Mapping]]] = ...) -> None: ...

class MemberPromoteRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class MemberPromoteResponse(_message.Message):
    __slots__ = ("members",)
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    members: _containers.RepeatedCompositeFieldContainer[Member]
    def __init__(self, members: _Optional[_Iterable[_Union[Member, _Mapping]]] = ...) -> None: ...

class MemberRemoveRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class MemberRemoveResponse(_message.Message):
    __slots__ = ("members",)
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    members: _containers.RepeatedCompositeFieldContainer[Member]
    def __init__(self, members: _Optional[_Iterable[_Union[Member, _Mapping]]] = ...) -> None: ...

class TransferLeadershipRequest(_message.Message):
    __slots__ = ("to",)
    TO_FIELD_NUMBER: _ClassVar[int]
    to: str
    def __init__(self, to: _Optional[str] = ...) -> None: ...

class TransferLeadershipResponse(_message.Message):
    __slots__ = ("leader",)
    LEADER_FIELD_NUMBER: _ClassVar[int]
    leader: str
    def __init__(self, leader: _Optional[str] = ...) -> None: ...

class LedgerAppendRequest(_message.Message):
    __slots__ = ("key", "token", "entry", "idempotency_key")
    KEY_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    key: str
    token: int
    entry: bytes
    idempotency_key: str
    def __init__(self, key: _Optional[str] = ..., token: _Optional[int] = ..., entry: _Optional[bytes] = ..., idempotency_key: _Optional[str] = ...) -> None: ...

class LedgerAppendResponse(_message.Message):
    __slots__ = ("position", "replayed")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    position: int
    replayed: bool
    def __init__(self, position: _Optional[int] = ..., replayed: bool = ...) -> None: ...

class LedgerReadRequest(_message.Message):
    __slots__ = ("key",)
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: str
    def __init__(self, key: _Optional[str] = ...) -> None: ...

class LedgerEntry(_message.Message):
    __slots__ = ("position", "token", "entry")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    position: int
    token: int
    entry: bytes
    def __init__(self, position: _Optional[int] = ..., token: _Optional[int] = ..., entry: _Optional[bytes] = ...) -> None: ...

class LedgerReadResponse(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LedgerEntry]
    def __init__(self, entries: _Optional[_Iterable[_Union[LedgerEntry, _Mapping]]] = ...) -> None: ...

class SnapshotRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SnapshotChunk(_message.Message):
    __slots__ = ("data", "applied_index", "total_bytes", "sha256")
    DATA_FIELD_NUMBER: _ClassVar[int]
    APPLIED_INDEX_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BYTES_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    applied_index: int
    total_bytes: int
    sha256: bytes
    def __init__(self, data: _Optional[bytes] = ..., applied_index: _Optional[int] = ..., total_bytes: _Optional[int] = ..., sha256: _Optional[bytes] = ...) -> None: ...
