"""nbgrader configuration of the book's problem sets (run nbgrader, or JupyterLab, from this folder)."""

import os
import sys
import warnings

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearHiddenTests,
    ClearMarkScheme,
    ClearOutput,
    ClearSolutions,
    ComputeChecksums,
    DeduplicateIds,
    GetGrades,
    IgnorePattern,
    IncludeHeaderFooter,
    InstantiateTests,
    LimitOutput,
    LockCells,
    OverwriteKernelspec,
    SaveAutoGrades,
    SaveCells,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ccb_collect import CourseExtractor, CourseFileNameCollector  # noqa: E402 - needs the path above
from ccb_nbgrader import (  # noqa: E402 - needs the path above
    CoursePackage,
    CourseVariant,
    FlaggedCsvExport,
    HideTestCode,
    InertStudentText,
    IsolatedGrading,
    MarkAnswerCells,
    RepairCellMetadata,
    RequireNumericScore,
    RestoreReleasedCells,
)

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

c.CourseDirectory.course_id = "ccb-lower-bounds"
# The course is this folder (an absolute path: a relative one makes every command warn).
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))

# nbgrader 0.9.6 with SQLAlchemy 2 warns "Object of type <SubmittedAssignment> not in session" when
# it autogrades a student for the first time; the gradebook is written correctly (the tests read it
# back), so the warning only hides the ones that matter.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted\w+> not in session")

# What a student sees in place of a solution.
c.ClearSolutions.code_stub = {"python": "# 在此作答\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "在此作答（手工评分）。"

# The rubric of a written part is a "### BEGIN MARK SCHEME" region in the part's (locked) question
# cell: removed from the student version, restored in the autograded notebook, so graders read it
# in the Formgrader right above the answer they score. nbgrader only expects mark schemes in
# "task" cells; a locked cell is saved and restored the same way.
c.ClearMarkScheme.enforce_metadata = False

# The package the released notebooks install (a pip requirement: a wheel on the course's server,
# a private index...). Never the public repository: it holds the solutions. Empty: the released
# setup cell tells students to install the course's package (see ccb_nbgrader.CoursePackage).
c.CoursePackage.source = os.environ.get("CCB_PACKAGE_SOURCE", "")
c.GenerateAssignment.preprocessors = [
    CoursePackage,
    CourseVariant,
    MarkAnswerCells,
    IncludeHeaderFooter,
    InstantiateTests,
    LockCells,
    ClearSolutions,
    ClearOutput,
    CheckCellMetadata,
    ComputeChecksums,
    SaveCells,
    ClearHiddenTests,
    ClearMarkScheme,
    ComputeChecksums,
    CheckCellMetadata,
]  # nbgrader 0.9.6's list with CoursePackage, CourseVariant and MarkAnswerCells first (before the checksums and the gradebook copy)

# Autograde: a copied cell or broken nbgrader metadata does not stop the class (RepairCellMetadata);
# warn only when a student edited a locked cell (see ccb_nbgrader.RestoreReleasedCells).
c.Autograde.sanitize_preprocessors = [
    RepairCellMetadata,
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    RestoreReleasedCells,
    CheckCellMetadata,
]
# The notebook is not run in a kernel: answer cells run in a sandboxed process, tests in the
# grader (ccb_nbgrader.IsolatedGrading); a cell without a numeric result scores 0. Once the grades
# are saved (nbgrader compares a written answer with the handed-out one to know whether it needs a
# manual grade), what the student wrote becomes inert text for the Formgrader (InertStudentText).
c.Autograde.autograde_preprocessors = [
    IsolatedGrading,
    IgnorePattern,
    LimitOutput,
    RequireNumericScore,
    SaveAutoGrades,
    InertStudentText,
    AssignLatePenalties,
    CheckCellMetadata,
]

# Feedback shows results, not test code (see ccb_nbgrader.HideTestCode).
c.GenerateFeedback.preprocessors = [GetGrades, HideTestCode, CSSHTMLHeaderPreprocessor]

# Export: nbgrader's CSV plus a needs_attention column (students whose notebook could not be graded).
c.ExportApp.plugin_class = FlaggedCsvExport

# zip_collect: uploads named <student_id>_<assignment>.ipynb (or zips of them) in
# downloaded/<assignment>/archive/. The student id is letters, digits, ".", "@" and "-" (no "_"):
# the Formgrader shows it in the teacher's browser, so a file name cannot put markup there.
c.FileNameCollectorPlugin.named_regexp = r".*/(?P<student_id>(?:[^\W_]|[.@-])+)_(?P<file_id>[^/_]+)\.ipynb$"
# Two files of one student for one notebook: the newest is collected, the others skipped with a
# warning (nbgrader stopped for the class); files keep their upload times (ccb_collect).
c.ZipCollectApp.extractor_plugin = CourseExtractor
c.ZipCollectApp.collector_plugin = CourseFileNameCollector
# Late penalties need a submission time: a "(?P<timestamp>...)" group in named_regexp, or (when the
# LMS's archive carries upload times) c.CourseFileNameCollector.timestamp_from_file_time = True;
# then a due date (nbgrader db assignment add ps1 --duedate="2027-03-15 23:59:00 Asia/Shanghai")
# and a penalty (c.LateSubmissionPlugin.penalty_method = "zero"). See assignments/README.md.
