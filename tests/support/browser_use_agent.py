"""browser-use as an external agent that drives its own browser, written as its users write
one: an ``Agent`` with the task, an OpenAI-compatible model (``ChatOpenAI`` at
``OPENAI_BASE_URL``) and a ``BrowserSession`` on the episode's ``--cdp`` URL. It prints the
agent's final result as its last line.

It runs with the interpreter of ``.venv-browser-use`` (``scripts/setup_browser_use.sh``),
so it imports browser-use and the standard library only, never webharness. Nothing it does
leaves 127.0.0.1: telemetry, cloud sync, the version check and the cloud hints are off
before browser-use is imported, the pricing table is not fetched (no cost calculation),
and the browser it drives is the harness's, so browser-use launches none and downloads no
extension.

Run: ``.venv-browser-use/bin/python -m tests.support.browser_use_agent --cdp URL --goal GOAL``.
"""

from __future__ import annotations

import argparse
import asyncio
import os

# browser-use reads these when it is imported: set them first.
QUIET = {
    "ANONYMIZED_TELEMETRY": "false",  # no PostHog events
    "BROWSER_USE_CLOUD_SYNC": "false",  # no run uploaded to its cloud
    "BROWSER_USE_VERSION_CHECK": "false",  # no look-up of its latest release
    "BROWSER_USE_CLOUD_HINTS": "false",
    "BROWSER_USE_DISABLE_EXTENSIONS": "1",  # downloaded only for a browser it launches
}
os.environ.update(QUIET)

from browser_use import Agent, BrowserSession, ChatOpenAI  # noqa: E402

MAX_STEPS = 30


async def main(cdp_url: str, goal: str, model: str) -> str:
    """Run the agent on ``goal`` in the browser at ``cdp_url``; its final result."""
    llm = ChatOpenAI(
        model=model,
        base_url=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ.get("OPENAI_API_KEY", "sk-local"),
        max_retries=0,
    )
    session = BrowserSession(cdp_url=cdp_url, keep_alive=False)
    agent = Agent(task=goal, llm=llm, browser_session=session, calculate_cost=False)
    history = await agent.run(max_steps=MAX_STEPS)
    return history.final_result() or ""


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cdp", required=True)
    parser.add_argument("--goal", required=True)
    parser.add_argument("--model", default="golden")
    args = parser.parse_args()
    answer = asyncio.run(main(args.cdp, args.goal, args.model))
    print(" ".join(answer.split()))
