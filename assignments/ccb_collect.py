"""``zip_collect`` plug-ins of the book's problem sets (loaded by ``nbgrader_config.py``; teachers only).

nbgrader's ``zip_collect`` stops for the whole class when one student has two files for the same
notebook ("Duplicate submission file. No timestamps for comparison") — an LMS export with two
attempts, or the same upload loose and in a zip (#40). And it records a submission time only when
the file name carries one, so late penalties never applied.

* :class:`CourseExtractor` extracts as nbgrader does, keeping each file's modification time — a
  loose upload's, or a zip member's (the time the LMS wrote into the archive, usually the upload):
  nbgrader's copy gave every file the moment of extraction.
* :class:`CourseFileNameCollector` matches file names with ``named_regexp`` as nbgrader does, and
  when a student has several files for one notebook it collects the newest (the ``timestamp``
  group of the name if the pattern has one, else the file's modification time) and skips the
  others with a warning naming the student and the files. ``timestamp_from_file_time = True``
  records each file's modification time as its submission time (for late penalties, when the
  LMS's archive carries upload times); by default a submission has a time only if its name does.
"""

from __future__ import annotations

import datetime
import os
import shutil
import zipfile

from nbgrader.plugins.zipcollect import ExtractorPlugin, FileNameCollectorPlugin
from traitlets import Bool

__all__ = ["CourseExtractor", "CourseFileNameCollector"]


class CourseExtractor(ExtractorPlugin):
    """nbgrader's extractor, keeping the files' modification times (see the module docstring)."""

    def extract(self, archive_path: str, extracted_path: str) -> None:
        super().extract(archive_path, extracted_path)
        for root, _, files in os.walk(archive_path):
            extract_to = os.path.normpath(os.path.join(extracted_path, os.path.relpath(root, archive_path)))
            for name in files:
                source = os.path.join(root, name)
                stem, ext = os.path.splitext(name)
                if ext in self.zip_ext and zipfile.is_zipfile(source):
                    self._zip_times(source, os.path.join(extract_to, stem))
                elif os.path.exists(os.path.join(extract_to, name)):
                    shutil.copystat(source, os.path.join(extract_to, name))

    @staticmethod
    def _zip_times(archive: str, folder: str) -> None:
        """Give the files extracted from ``archive`` into ``folder`` the times the archive records."""
        with zipfile.ZipFile(archive) as bundle:
            for member in bundle.infolist():
                path = os.path.join(folder, *member.filename.split("/"))
                if member.is_dir() or not os.path.isfile(path):
                    continue
                stamp = datetime.datetime(*member.date_time).timestamp()
                os.utime(path, (stamp, stamp))


class CourseFileNameCollector(FileNameCollectorPlugin):
    """nbgrader's file-name collector that keeps the newest of a student's files (module docstring)."""

    timestamp_from_file_time = Bool(
        False,
        help="Record each file's modification time as its submission time (late penalties need one).",
    ).tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._skipped: dict[str, str] | None = None

    def _time(self, path: str, info: dict) -> datetime.datetime:
        stamp = info.get("timestamp")
        if stamp:
            from nbgrader.utils import parse_utc

            return parse_utc(stamp)
        return datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.UTC).replace(tzinfo=None)

    def _duplicates(self, submitted_file: str) -> dict[str, str]:
        """``{skipped file: the file kept instead}`` over the whole ``extracted`` folder, computed once."""
        if self._skipped is not None:
            return self._skipped
        self._skipped = {}
        root = submitted_file
        while os.path.basename(root) and os.path.basename(root) != "extracted":
            root = os.path.dirname(root)
        if not os.path.basename(root):
            return self._skipped
        groups: dict[tuple, list[tuple]] = {}
        for folder, _, files in os.walk(root):
            for name in sorted(files):
                path = os.path.join(folder, name)
                info = super().collect(path)
                if info:
                    key = (info["student_id"], os.path.splitext(info["file_id"])[0])
                    groups.setdefault(key, []).append((self._time(path, info), path))
        for (student, notebook), found in groups.items():
            if len(found) < 2:
                continue
            found.sort()
            kept = found[-1][1]
            for _, path in found[:-1]:
                self._skipped[path] = kept
            self.log.warning(
                "Student %s has %d files for %s: collected the newest, %s; skipped %s",
                student,
                len(found),
                notebook,
                os.path.relpath(kept, root),
                ", ".join(os.path.relpath(path, root) for _, path in found[:-1]),
            )
        return self._skipped

    def collect(self, submitted_file: str):
        info = super().collect(submitted_file)
        if not info:
            return info
        if submitted_file in self._duplicates(submitted_file):
            return None
        if self.timestamp_from_file_time and not info.get("timestamp"):
            stamp = self._time(submitted_file, info)
            info["timestamp"] = stamp.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
        return info
