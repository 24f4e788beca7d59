"""librdkafka's log lines, kept for the test's JSON instead of flooding stderr: each distinct
message (durations dropped) once, as "LEVEL Nx message"."""
import logging
import re
from collections import Counter


class LogTally(logging.Handler):
    def __init__(self, keep=20):
        super().__init__()
        self.keep = keep
        self.counts = Counter()

    def emit(self, record):
        key = (record.levelname, re.sub(r"\d+(\.\d+)?ms", "Nms", record.getMessage()))
        if key in self.counts or len(self.counts) < self.keep:
            self.counts[key] += 1

    def summary(self):
        return [f"{level} {n}x {message}" for (level, message), n in self.counts.most_common()]


def librdkafka_logger(name):
    """A logger for confluent-kafka's "logger" setting, and the tally it feeds."""
    tally = LogTally()
    logger = logging.getLogger(name)
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.addHandler(tally)
    return logger, tally
