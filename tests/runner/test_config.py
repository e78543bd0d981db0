"""A run's config and the jobs it expands into."""

from __future__ import annotations

import pytest

from webharness.errors import RunError
from webharness.runner import EpisodeJob, RunConfig, expand_jobs, match_tasks


def test_unknown_task_patterns_are_refused_with_a_suggestion():
    with pytest.raises(RunError, match="Closest: 'WebEval/form-v0'"):
        match_tasks(["WebEval/fomr-v0"])
    assert match_tasks(["WebEval/form*"]) == ["WebEval/form-v0"]


def test_expand_jobs_makes_one_job_per_agent_task_stack_seed_and_trial_grouped_by_env(tmp_path):
    config = RunConfig(
        agents=["oracle", "random"],
        tasks=["form", "stats"],
        seeds=[0, 1, 2],
        perturbations=["", "popup"],
        trials=2,
        log_prompts=True,
        agent_options={"seed": 7},
    )
    jobs = expand_jobs(config, tmp_path)
    assert len({j.key() for j in jobs}) == len(jobs) == 2 * 2 * 2 * 3 * 2
    envs = [(j.agent, j.env_id, j.perturbations) for j in jobs]
    switches = sum(a != b for a, b in zip(envs, envs[1:]))
    assert switches == len(set(envs)) - 1  # each env's jobs come one after another
    assert jobs[0].agent_options == {"seed": 7, "log_prompts": True}
    assert all(j.run_dir == str(tmp_path) for j in jobs)


def test_a_job_survives_the_trip_to_another_process():
    job = EpisodeJob(agent="oracle", env_id="WebEval/form-v0", seed=3, run_dir="runs/x")
    assert EpisodeJob.model_validate(job.model_dump()) == job
    assert job.key() == ("oracle", "WebEval/form-v0", 3, 0, "")


def test_a_config_with_an_unknown_field_is_refused():
    with pytest.raises(ValueError, match="sedes"):
        RunConfig(agents=["oracle"], sedes=[0])
