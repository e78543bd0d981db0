"""The page's own reward as a criterion: for pages that judge their own episode, as
MiniWoB++'s do (``WOB_DONE_GLOBAL``, ``WOB_RAW_REWARD_GLOBAL``).

Success is the page saying its episode is done with a reward of at least ``threshold``.
The reward is the raw one, not MiniWoB++'s time-discounted ``WOB_REWARD_GLOBAL``: a wrong
answer can earn a positive reward (a partial 0.1 on ``find-greatest``, ≈0.66 for a random
colour on ``use-colorwheel``), so a positive reward is not success; a full one (1.0, the
default) is, or a task's own threshold where the reward is a closeness score.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple

from pydantic import BaseModel

from webharness.spec.checks import SPEC_CONFIG

if TYPE_CHECKING:
    from webharness.spec.criteria import CriteriaContext

# What the env's reward is when the page never ended its episode: MiniWoB++'s own reward
# for an episode that ran out of time.
UNFINISHED_REWARD = -1.0


class PageOutcome(NamedTuple):
    """Where the page's own episode stands: ended or not, and its reward (0 until it ends)."""

    done: bool
    reward: float


class PageReward(BaseModel):
    """The page ended its episode (``done`` is truthy) with a reward (``reward``, a number)
    of at least ``threshold``. Both are JavaScript expressions read in the page's world."""

    model_config = SPEC_CONFIG

    kind: Literal["page_reward"] = "page_reward"
    done: str = "WOB_DONE_GLOBAL"
    reward: str = "WOB_RAW_REWARD_GLOBAL"
    threshold: float = 1.0

    @property
    def expressions(self) -> tuple[str, str]:
        """The JS the page evaluates for this criterion after each step."""
        return (self.done, self.reward)

    def outcome(self, ctx: CriteriaContext) -> PageOutcome:
        if any(e in ctx.js_errors for e in self.expressions) or not ctx.js.get(self.done):
            return PageOutcome(False, 0.0)
        reward = ctx.js.get(self.reward)
        if isinstance(reward, bool) or not isinstance(reward, (int, float)):
            return PageOutcome(True, 0.0)  # the page ended with no number: no reward
        return PageOutcome(True, float(reward))

    def holds(self, ctx: CriteriaContext) -> bool:
        done, reward = self.outcome(ctx)
        return done and reward >= self.threshold
