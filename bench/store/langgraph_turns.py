"""The peer for the store's turns per second: LangGraph's own checkpointers (SQLite and
PostgreSQL) saving the same turn — model, read, model, write, model — as a graph of five steps
with a checkpoint after each, one thread (conversation) per turn, 1, 8 and 32 writers (threads,
each with its own connection). No model and no tools run: only the saving is measured, as in the
Rust benchmark (whose turns also run the tool check and keep the signed history).

    bench/.venv/bin/python bench/store/langgraph_turns.py POSTGRES_URL
"""

import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from importlib.metadata import version
from typing import Annotated, TypedDict
import operator

from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from psycopg import Connection
from psycopg.rows import dict_row


class State(TypedDict):
    messages: Annotated[list, operator.add]


def step(name, content):
    def node(state):
        return {"messages": [{"role": name, "content": content}]}
    return node


def graph(saver):
    g = StateGraph(State)
    g.add_node("model1", step("assistant", {"calls": [{"tool": "read_note", "arguments": {"name": "todo.md"}}]}))
    g.add_node("read", step("tool", "milk"))
    g.add_node("model2", step("assistant", {"calls": [{"tool": "write_note", "arguments": {"name": "todo.md", "text": "milk"}}]}))
    g.add_node("write", step("tool", "ok"))
    g.add_node("model3", step("assistant", "done"))
    g.add_edge(START, "model1")
    g.add_edge("model1", "read")
    g.add_edge("read", "model2")
    g.add_edge("model2", "write")
    g.add_edge("write", "model3")
    g.add_edge("model3", END)
    return g.compile(checkpointer=saver)


TOTAL = 320


def run(make_saver, writers, label):
    def worker(w):
        saver, close = make_saver()
        app = graph(saver)
        for i in range(w, TOTAL, writers):
            app.invoke({"messages": [{"role": "user", "content": "Note 1"}]},
                       {"configurable": {"thread_id": f"{label}-{writers}-{i}"}})
        close()

    t = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(w,)) for w in range(writers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return TOTAL / (time.perf_counter() - t)


def main():
    pg = sys.argv[1]
    tmp = tempfile.mkdtemp()
    path = f"{tmp}/lg.sqlite"

    def sqlite_saver():
        conn = sqlite3.connect(path, check_same_thread=False, timeout=120)
        saver = SqliteSaver(conn)
        return saver, conn.close

    def pg_saver():
        conn = Connection.connect(pg, autocommit=True, prepare_threshold=0, row_factory=dict_row)
        return PostgresSaver(conn), conn.close

    for make in (sqlite_saver, pg_saver):
        saver, close = make()
        saver.setup()
        close()
    print(f"langgraph {version('langgraph')}, langgraph-checkpoint-sqlite "
          f"{version('langgraph-checkpoint-sqlite')}, langgraph-checkpoint-postgres "
          f"{version('langgraph-checkpoint-postgres')}")
    print("| store | writers | turns | turns/s (median of 3) | spread |\n|---|---|---|---|---|")
    for name, make in (("LangGraph SqliteSaver", sqlite_saver), ("LangGraph PostgresSaver", pg_saver)):
        for writers in (1, 8, 32):
            rates = sorted(run(make, writers, f"{name}-{r}") for r in range(3))
            print(f"| {name} | {writers} | {TOTAL} | {statistics.median(rates):.0f} | {rates[0]:.0f}–{rates[-1]:.0f} |")


if __name__ == "__main__":
    main()
