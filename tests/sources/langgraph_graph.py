"""A small real LangGraph graph of plain Python nodes (no model): an agent that calls a tool, a tool
node, and a review that interrupts for a human's answer. Its checkpoints are written by langgraph's
own SqliteSaver, as an application's would be."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command, interrupt

USAGE = [(10, 5), (20, 7)]  # (input, output) tokens of the agent's two replies


class State(TypedDict, total=False):
    messages: Annotated[list, add_messages]
    todo: list
    approved: bool


def agent(state: State) -> dict:
    calls = sum(1 for m in state["messages"] if isinstance(m, AIMessage))
    if calls == 0:
        i, o = USAGE[0]
        return {"messages": [AIMessage("listing the folder", tool_calls=[
                    {"name": "ls", "args": {"path": "."}, "id": "call_ls"},
                    {"name": "cat", "args": {"path": "a.txt"}, "id": "call_cat"}],
                    usage_metadata={"input_tokens": i, "output_tokens": o, "total_tokens": i + o},
                    response_metadata={"model_name": "plain-python-1"})],
                "todo": ["read a.txt"]}
    i, o = USAGE[1]
    return {"messages": [AIMessage("a.txt says hello", usage_metadata={"input_tokens": i, "output_tokens": o,
                                                                       "total_tokens": i + o})],
            "todo": []}


def tools(state: State) -> dict:
    last = state["messages"][-1]
    return {"messages": [ToolMessage({"ls": "a.txt", "cat": "hello"}[c["name"]], tool_call_id=c["id"], name=c["name"])
                         for c in last.tool_calls]}


def review(state: State) -> dict:
    answer = interrupt({"question": "ship it?"})
    return {"approved": answer == "yes"}


def route(state: State) -> str:
    return "tools" if state["messages"][-1].tool_calls else "review"


def builder() -> StateGraph:
    """The graph, to compile with any checkpointer."""
    g = StateGraph(State)
    g.add_node("agent", agent)
    g.add_node("tools", tools)
    g.add_node("review", review)
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", route, ["tools", "review"])
    g.add_edge("tools", "agent")
    g.add_edge("review", END)
    return g


def compile_graph(db: Path):
    con = sqlite3.connect(db, check_same_thread=False)
    return builder().compile(checkpointer=SqliteSaver(con)), con


def run(db: Path, thread: str = "t1", answer: str | None = "yes"):
    """A whole run: the prompt, a tool round, the interrupt, and (unless None) the human's answer."""
    app, con = compile_graph(db)
    config = {"configurable": {"thread_id": thread}}
    app.invoke({"messages": [HumanMessage("what is in a.txt?")]}, config)
    if answer is not None:
        app.invoke(Command(resume=answer), config)
    return app, con, config
