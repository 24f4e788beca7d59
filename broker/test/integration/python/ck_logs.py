"""librdkafka's log lines, kept for the test's JSON instead of flooding stderr: each distinct
message (timestamps and counters dropped) once, with how often it came."""
import logging
import re
from collections import Counter


class LogTally(logging.Handler):
    def __init__(self, keep=20):
        super().__init__()
        self.keep = keep
        self.counts = Counter()

    def emit(self, record):
        message = re.sub(r"\d+(\.\d+)?ms", "Nms", record.getMessage())
        if message in self.counts or len(self.counts) < self.keep:
            self.counts[message] += 1

    def summary(self):
        return [f"{n}x {m}" for m, n in self.counts.most_common()]


def librdkafka_logger(name):
    """A logger for confluent-kafka's "logger" setting, and the tally it feeds."""
    tally = LogTally()
    logger = logging.getLogger(name)
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.addHandler(tally)
    return logger, tally
