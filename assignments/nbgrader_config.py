"""nbgrader configuration of the book's problem sets (run nbgrader from this folder)."""

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

c.CourseDirectory.course_id = "ccb-lower-bounds"
c.CourseDirectory.root = "."
# What a student sees in place of a solution.
c.ClearSolutions.code_stub = {"python": "# 在此作答\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "在此作答（手工评分）。"
# Notebooks call ccb_helpers' exhaustive searches: allow time for them.
c.ExecutePreprocessor.timeout = 300
