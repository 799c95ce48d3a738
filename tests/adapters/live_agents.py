"""Three agents' SDKs writing into one Sessionscope store at once, as a team's would:

    python -m tests.adapters.live_agents STORE [--pause SECONDS]

a Claude Agent SDK mirror (transcript lines through ClaudeSessionStore, as `query()` hands them over),
an OpenAI Agents SDK session (a real Runner with a local echo model) and a LangGraph graph (its
checkpointer is SessionscopeSaver). With the app open on STORE, each session shows up within two
seconds of being written; `--pause` spaces the three out so you can watch it happen. Prints the
store ids of the three sessions, one a line. Needs no network and no API key.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from sessionscope import open_store
from sessionscope.adapters.agents import SessionscopeSession
from sessionscope.adapters.claude import ClaudeSessionStore
from sessionscope.adapters.langgraph import SessionscopeSaver
from tests.adapters.echo_model import EchoModel
from tests.sources import langgraph_graph as graph
from tests.sources.claude_factory import Transcript


def claude(store) -> str:
    t = Transcript(cwd="/work/live")
    t.user("find why the nightly build is red")
    call = t.assistant(tool=("Bash", {"command": "make test"}))
    t.tool_result(call, "FAILED test_dates.py::test_leap_year")
    t.assistant("test_leap_year fails: 2100 is not a leap year.")
    backend = ClaudeSessionStore(store)
    asyncio.run(backend.append({"project_key": "-work-live", "session_id": t.session_id}, t.lines))
    backend.close()  # (its lines shown as events before the store closes)
    return t.session_id


def agents_sdk(store) -> str:
    import agents
    agents.set_tracing_disabled(True)  # no key, no network: nothing to export traces to
    session = SessionscopeSession("live-chat", store)
    agent = agents.Agent(name="echo", model=EchoModel())
    asyncio.run(agents.Runner.run(agent, "summarise the open pull requests", session=session))
    return session.id


def langgraph(store) -> str:
    from langchain_core.messages import HumanMessage
    from langgraph.types import Command

    saver = SessionscopeSaver(store)
    app = graph.builder().compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "live-graph"}}
    app.invoke({"messages": [HumanMessage("what is in a.txt?")]}, config)
    app.invoke(Command(resume="yes"), config)
    saver.close()
    from sessionscope.sources.langgraph.importer import session_key
    return session_key(saver.path, "live-graph")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("store")
    p.add_argument("--pause", type=float, default=0.0, help="seconds between the three agents")
    args = p.parse_args(argv)
    with open_store(args.store) as store:
        for write in (claude, agents_sdk, langgraph):
            print(write(store), flush=True)
            time.sleep(args.pause)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
