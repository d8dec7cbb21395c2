"""The Plan view: a wizard that builds a PlanRequest and a view of the planner's answer."""
