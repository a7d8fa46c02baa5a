"""The source of the conversion benchmark, (h) and (i): N notes whose dates, flags and
titles are text, every value one that both etl and the SQL script convert (etl would reject
any other)."""

import datetime
import os
import sqlite3

NOTE_FLAGS = ["yes", "No", "TRUE", "false", "on", "OFF", "1", "0"]
NOTE_PADS = ["", "  ", "\t", " \t "]


def note_row(number):
    """The text values of note `number`, deterministic: four date forms (a day; a UTC
    time with a space or with Z; a time at an offset), eight flag spellings, titles with
    spaces and tabs around them."""
    instant = 1_500_000_000 + (number * 7919) % 300_000_000
    utc = datetime.datetime.fromtimestamp(instant, datetime.timezone.utc)
    form = number % 4
    if form == 0:
        created = utc.strftime("%Y-%m-%d")
    elif form == 1:
        created = utc.strftime("%Y-%m-%d %H:%M:%S")
    elif form == 2:
        created = utc.strftime("%Y-%m-%dT%H:%M:%SZ")
    else:
        minutes = ((number % 27) - 13) * 30
        local = utc + datetime.timedelta(minutes=minutes)
        sign = "+" if minutes >= 0 else "-"
        created = local.strftime("%Y-%m-%dT%H:%M:%S") + f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    title = NOTE_PADS[number % 4] + f"Note {number:09d} of the archive" + NOTE_PADS[(number // 4) % 4]
    return number, title, created, NOTE_FLAGS[(number * 3) % 8]


def write_notes(path, rows):
    """The notes-v1 store (Benchmarks/pipelines/models/notes-v1.json, plain layout)."""
    if os.path.exists(path):
        os.remove(path)
    connection = sqlite3.connect(path)
    try:
        connection.execute('CREATE TABLE IF NOT EXISTS "Note" ("id" INTEGER PRIMARY KEY, '
                           '"title" VARCHAR, "createdAt" VARCHAR, "done" VARCHAR)')
        batch = []
        for number in range(1, rows + 1):
            batch.append(note_row(number))
            if len(batch) == 10_000:
                connection.executemany('INSERT INTO "Note" VALUES (?, ?, ?, ?)', batch)
                batch = []
        connection.executemany('INSERT INTO "Note" VALUES (?, ?, ?, ?)', batch)
        connection.commit()
    finally:
        connection.close()
