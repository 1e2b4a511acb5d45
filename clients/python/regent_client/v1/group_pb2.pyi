from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PartitionToken(_message.Message):
    __slots__ = ("partition", "token")
    PARTITION_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    partition: int
    token: int
    def __init__(self, partition: _Optional[int] = ..., token: _Optional[int] = ...) -> None: ...

class GroupJoinRequest(_message.Message):
    __slots__ = ("group", "member", "lease", "ttl_ms", "partitions", "request_id")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    PARTITIONS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    group: str
    member: str
    lease: int
    ttl_ms: int
    partitions: int
    request_id: str
    def __init__(self, group: _Optional[str] = ..., member: _Optional[str] = ..., lease: _Optional[int] = ..., ttl_ms: _Optional[int] = ..., partitions: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class GroupJoinResponse(_message.Message):
    __slots__ = ("lease", "index")
    LEASE_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    lease: int
    index: int
    def __init__(self, lease: _Optional[int] = ..., index: _Optional[int] = ...) -> None: ...

class GroupLeaveRequest(_message.Message):
    __slots__ = ("group", "member", "lease", "request_id")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    group: str
    member: str
    lease: int
    request_id: str
    def __init__(self, group: _Optional[str] = ..., member: _Optional[str] = ..., lease: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class GroupLeaveResponse(_message.Message):
    __slots__ = ("index",)
    INDEX_FIELD_NUMBER: _ClassVar[int]
    index: int
    def __init__(self, index: _Optional[int] = ...) -> None: ...

class GroupReleaseRequest(_message.Message):
    __slots__ = ("group", "partitions", "request_id")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    PARTITIONS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    group: str
    partitions: _containers.RepeatedCompositeFieldContainer[PartitionToken]
    request_id: str
    def __init__(self, group: _Optional[str] = ..., partitions: _Optional[_Iterable[_Union[PartitionToken, _Mapping]]] = ..., request_id: _Optional[str] = ...) -> None: ...

class GroupReleaseResponse(_message.Message):
    __slots__ = ("index",)
    INDEX_FIELD_NUMBER: _ClassVar[int]
    index: int
    def __init__(self, index: _Optional[int] = ...) -> None: ...

class GroupWatchRequest(_message.Message):
    __slots__ = ("group", "member", "after_index")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    AFTER_INDEX_FIELD_NUMBER: _ClassVar[int]
    group: str
    member: str
    after_index: int
    def __init__(self, group: _Optional[str] = ..., member: _Optional[str] = ..., after_index: _Optional[int] = ...) -> None: ...

class GroupWatchResponse(_message.Message):
    __slots__ = ("index", "joined", "lease", "owned", "release", "incoming", "partitions")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    JOINED_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    OWNED_FIELD_NUMBER: _ClassVar[int]
    RELEASE_FIELD_NUMBER: _ClassVar[int]
    INCOMING_FIELD_NUMBER: _ClassVar[int]
    PARTITIONS_FIELD_NUMBER: _ClassVar[int]
    index: int
    joined: bool
    lease: int
    owned: _containers.RepeatedCompositeFieldContainer[PartitionToken]
    release: _containers.RepeatedScalarFieldContainer[int]
    incoming: _containers.RepeatedScalarFieldContainer[int]
    partitions: int
    def __init__(self, index: _Optional[int] = ..., joined: bool = ..., lease: _Optional[int] = ..., owned: _Optional[_Iterable[_Union[PartitionToken, _Mapping]]] = ..., release: _Optional[_Iterable[int]] = ..., incoming: _Optional[_Iterable[int]] = ..., partitions: _Optional[int] = ...) -> None: ...

class GroupStatusRequest(_message.Message):
    __slots__ = ("group", "serializable")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    SERIALIZABLE_FIELD_NUMBER: _ClassVar[int]
    group: str
    serializable: bool
    def __init__(self, group: _Optional[str] = ..., serializable: bool = ...) -> None: ...

class GroupMemberInfo(_message.Message):
    __slots__ = ("member", "lease", "joined_index")
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    JOINED_INDEX_FIELD_NUMBER: _ClassVar[int]
    member: str
    lease: int
    joined_index: int
    def __init__(self, member: _Optional[str] = ..., lease: _Optional[int] = ..., joined_index: _Optional[int] = ...) -> None: ...

class PartitionOwner(_message.Message):
    __slots__ = ("partition", "owner", "token", "next")
    PARTITION_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIELD_NUMBER: _ClassVar[int]
    partition: int
    owner: str
    token: int
    next: str
    def __init__(self, partition: _Optional[int] = ..., owner: _Optional[str] = ..., token: _Optional[int] = ..., next: _Optional[str] = ...) -> None: ...

class GroupStatusResponse(_message.Message):
    __slots__ = ("group", "partitions", "members", "owners", "index")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    PARTITIONS_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    OWNERS_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    group: str
    partitions: int
    members: _containers.RepeatedCompositeFieldContainer[GroupMemberInfo]
    owners: _containers.RepeatedCompositeFieldContainer[PartitionOwner]
    index: int
    def __init__(self, group: _Optional[str] = ..., partitions: _Optional[int] = ..., members: _Optional[_Iterable[_Union[GroupMemberInfo, _Mapping]]] = ..., owners: _Optional[_Iterable[_Union[PartitionOwner, _Mapping]]] = ..., index: _Optional[int] = ...) -> None: ...
