"""Vector clocks of streams, events and the host (happens-before between streams).

Each stream counts the ops launched on it; its clock says, for every stream,
up to which op number that stream's work is known to be finished before the
stream's next op runs. Event record/wait, wait_stream and the host
synchronizations move knowledge between clocks."""

from __future__ import annotations

from dataclasses import dataclass, field

StreamKey = tuple[int, int]  # (device_index, stream_id)


def _join(into: dict[StreamKey, int], other: dict[StreamKey, int]) -> None:
    for key, seq in other.items():
        if into.get(key, 0) < seq:
            into[key] = seq


@dataclass
class Clocks:
    """Happens-before state of every stream, event and the host thread."""

    streams: dict[StreamKey, dict[StreamKey, int]] = field(default_factory=dict)
    # What the host knows to be finished: every launch after a synchronization
    # happens after it, whatever its stream.
    host: dict[StreamKey, int] = field(default_factory=dict)
    events: dict[int, dict[StreamKey, int]] = field(default_factory=dict)

    def _clock(self, stream: StreamKey) -> dict[StreamKey, int]:
        clock = self.streams.setdefault(stream, {stream: 0})
        _join(clock, self.host)
        return clock

    def launch(self, stream: StreamKey) -> int:
        """Counts one op on `stream`; returns its sequence number."""
        clock = self._clock(stream)
        clock[stream] = clock.get(stream, 0) + 1
        return clock[stream]

    def happened_before(self, stream: StreamKey, seq: int, on: StreamKey) -> bool:
        """Whether op `seq` of `stream` is ordered before the next op on `on`."""
        return self._clock(on).get(stream, 0) >= seq

    def snapshot(self, stream: StreamKey) -> dict[StreamKey, int]:
        return dict(self._clock(stream))

    def record_event(self, event_id: int, stream: StreamKey) -> None:
        self.events[event_id] = self.snapshot(stream)

    def wait_event(self, stream: StreamKey, event_id: int) -> None:
        # Waiting for a never-recorded event is a no-op (as on CUDA/ACL).
        _join(self._clock(stream), self.events.get(event_id, {}))

    def wait_stream(self, waiter: StreamKey, waited: StreamKey) -> None:
        _join(self._clock(waiter), self.snapshot(waited))

    def host_sync_event(self, event_id: int) -> None:
        _join(self.host, self.events.get(event_id, {}))

    def host_sync_stream(self, stream: StreamKey) -> None:
        _join(self.host, self.snapshot(stream))

    def host_sync_device(self, device_index: int | None) -> None:
        for key in list(self.streams):
            if device_index is None or key[0] == device_index:
                self.host_sync_stream(key)

    def forget_event(self, event_id: int) -> None:
        self.events.pop(event_id, None)
