"""When to try a chat-completions request again, and how long to wait first.

A transient failure (HTTP 429 or 5xx, a timeout, a dropped connection) is retried with
exponential backoff and jitter, at least as late as the server's ``Retry-After`` asks,
within two bounds: ``max_attempts`` requests in all, and ``max_wait_s`` seconds of waiting
between them in all.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import timezone
from email.utils import parsedate_to_datetime

# HTTP statuses worth another try besides 5xx: the server is busy, not refusing.
RETRY_STATUSES = frozenset({429})


def retryable_status(status: int) -> bool:
    """Whether an HTTP error status is transient (429, or any 5xx)."""
    return status in RETRY_STATUSES or 500 <= status <= 599


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a failed request is tried again.

    Args:
        max_attempts: requests in all, the first included (1 means no retry).
        max_wait_s: seconds of waiting between attempts, summed over the retries of one
            request; a retry that would wait past it is not made.
        base_delay_s: backoff before the first retry; it doubles with each retry.
        max_delay_s: the backoff stops growing here (a longer ``Retry-After`` still wins).

    Example:
        >>> import random
        >>> policy = RetryPolicy(base_delay_s=1.0)
        >>> 0.5 <= policy.delay(1, None, random.Random(0)) <= 1.0
        True
        >>> policy.delay(1, 7.0, random.Random(0))
        7.0
    """

    max_attempts: int = 4
    max_wait_s: float = 60.0
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts={self.max_attempts!r}: must be 1 or more")
        if not self.max_wait_s >= 0:
            raise ValueError(f"max_retry_wait_s={self.max_wait_s!r}: must be 0 or more")
        if not 0 < self.base_delay_s <= self.max_delay_s:
            raise ValueError(
                f"base_delay_s={self.base_delay_s!r}, max_delay_s={self.max_delay_s!r}: "
                "need 0 < base_delay_s <= max_delay_s"
            )

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first).

        Half the exponential backoff is fixed and half is drawn from ``rng`` ("equal
        jitter"), so that workers that failed together do not retry together; a server's
        ``Retry-After`` is a floor.
        """
        backoff = min(self.max_delay_s, self.base_delay_s * 2 ** (retry - 1))
        jittered = backoff / 2 + rng.uniform(0, backoff / 2)
        return max(jittered, retry_after or 0.0)


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds asked for by a ``Retry-After`` header: a number of seconds, or an HTTP date.

    Args:
        value: the header's value (None when absent).
        now: the current time as a Unix timestamp, to turn a date into a delay.

    Returns:
        The delay (0 for a date in the past), or None when absent or unreadable.

    Example:
        >>> parse_retry_after("2", now=0.0)
        2.0
        >>> parse_retry_after("Thu, 01 Jan 1970 00:00:30 GMT", now=10.0)
        20.0
    """
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # RFC 9110 dates are GMT
            when = when.replace(tzinfo=timezone.utc)
        seconds = when.timestamp() - now
    return max(0.0, seconds) if math.isfinite(seconds) else None
