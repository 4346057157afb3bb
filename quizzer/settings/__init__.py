"""The learner's settings: defaults, then the config file, then the environment, then options.

The file is TOML, ``platformdirs.user_config_dir("quizzer")/config.toml`` unless ``QUIZ_CONFIG``
names another; ``quiz config set KEY VALUE`` / ``unset KEY`` change that key and keep the rest of
the file, its comments too. Each key has an environment
variable, ``QUIZ_`` and the key in capitals (``QUIZ_DESIRED_RETENTION=0.85``), and a command's
options (``quiz study --new-per-day 5``) win over everything for one run.

Every value is checked where it is read: a bad one is a UsageError naming the key and what it
may be (``config.toml: desired_retention: must be a number from 0.70 to 0.99, not 1.5``).

Kept light (stdlib only at import). The front end reads the file once per run
(``read_config``) and loads the settings from what it read (``load``); no layer below reads it on
its own: the settings are handed down.

The package by job: ``values`` (each value's parser), ``keys`` (the key table, ``Settings``),
``loading`` (the file read once, the environment), ``edit`` (``quiz config set`` / ``unset``).
"""

from quizzer.settings.edit import HEADER, is_setting, set_value, unset_value
from quizzer.settings.keys import DECK_ID, DECK_KEY, DECK_KEYS, DEFAULTS, KEYS, SOURCES, Key, Settings, build, key_of, parse
from quizzer.settings.loading import CONFIG_ENV, ConfigFile, check, config_path, from_environment, load, read_config, read_raw
from quizzer.settings.values import BadValue, format_duration, format_steps, retention

__all__ = ["BadValue", "CONFIG_ENV", "ConfigFile", "DECK_ID", "DECK_KEY", "DECK_KEYS", "DEFAULTS", "HEADER", "KEYS",
           "Key", "SOURCES", "Settings", "build", "check", "config_path", "format_duration", "format_steps",
           "from_environment", "is_setting", "key_of", "load", "parse", "read_config", "read_raw", "retention",
           "set_value", "unset_value"]
