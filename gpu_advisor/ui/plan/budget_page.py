"""Wizard page 4: rent or buy, hours of use, electricity price, and limits on the hardware."""

from __future__ import annotations

from PySide6.QtWidgets import QButtonGroup, QCheckBox, QGroupBox, QHBoxLayout, QRadioButton, QWidget

from gpu_advisor.core.catalog import default_catalog
from gpu_advisor.core.precision import TIER_LABELS
from gpu_advisor.core.request import PlanRequest, Purchase, Vendor
from gpu_advisor.core.units import HOURS_PER_MONTH
from gpu_advisor.ui.glossary import tip
from gpu_advisor.ui.plan.binding import FieldBinder
from gpu_advisor.ui.plan.fields import FormPage, NumberEdit, make_combo
from gpu_advisor.ui.plan.form import PlanForm


class BudgetPage(FormPage):
    """How the hardware is paid for, and optional limits on what the planner may pick."""

    def __init__(self, form: PlanForm, parent: QWidget | None = None) -> None:
        super().__init__(
            "Budget",
            "Renting is ranked by the rent of the whole training job when a token budget is set, else by "
            "the hourly price; buying by the cards and their machines plus three years of electricity. "
            "Both costs are shown either way, with the month where buying breaks even.",
            parent,
        )
        self.binder = FieldBinder(form)
        money = QGroupBox("Cost")
        money_form = self.new_form_layout()
        money.setLayout(money_form)
        self.rent = QRadioButton("&Rent in the cloud")
        self.buy = QRadioButton("B&uy the hardware")
        self.purchase_group = QButtonGroup(self)
        choice = QWidget()
        row = QHBoxLayout(choice)
        row.setContentsMargins(0, 0, 0, 0)
        for button in (self.rent, self.buy):
            self.purchase_group.addButton(button)
            row.addWidget(button)
        row.addStretch(1)
        self.add_field(money_form, "Rank by:", choice, "purchase", tip("breakeven"))
        # Alt letters: E, V and H are the Edit, View and Help menus, K and S the wizard's buttons.
        self.hours = NumberEdit(integer=False, placeholder=f"{HOURS_PER_MONTH:g}")
        self.add_field(
            money_form, "Hours of use per &month (h):", self.hours, "hours_per_month", tip("hours_per_month")
        )
        self.own_machines = QCheckBox("I already &own the machines (price the GPUs only)")
        self.add_field(
            money_form,
            "Machines:",
            self.own_machines,
            "own_machines",
            "Buying prices each desktop, workstation tower or 8-GPU server without its GPUs "
            "(resources/hosts.json); tick this when the machines are already there.",
        )
        self.electricity = NumberEdit(
            integer=False, placeholder=f"{PlanRequest.model_fields['electricity_usd_per_kwh'].default:g}"
        )
        self.add_field(
            money_form,
            "Electricity (USD &per kWh):",
            self.electricity,
            "electricity_usd_per_kwh",
            tip("electricity"),
        )

        limits = QGroupBox("Hardware limits (optional)")
        limits_form = self.new_form_layout()
        limits.setLayout(limits_form)
        self.tier = make_combo((("Any tier", None), *((label, t) for t, label in TIER_LABELS.items())))
        self.add_field(limits_form, "&Tier:", self.tier, "tier", "Consider only GPUs of this tier.")
        catalog = default_catalog()
        self.gpu = make_combo((("Any GPU", None), *((g.name, g.id) for g in catalog.gpus)))
        self.add_field(
            limits_form, "&GPU model:", self.gpu, "gpu", "Consider only this GPU (from the catalogue)."
        )
        self.vendor = make_combo(
            (("Any vendor", None), ("NVIDIA (CUDA)", Vendor.NVIDIA), ("AMD (ROCm)", Vendor.AMD))
        )
        self.add_field(
            limits_form,
            "Ve&ndor:",
            self.vendor,
            "vendor",
            "Consider only this vendor's GPUs (a CUDA-only code base needs NVIDIA).",
        )
        self.require_nvlink = QCheckBox("Only GPUs joined by NV&Link")
        self.add_field(
            limits_form,
            "Interconnect:",
            self.require_nvlink,
            "require_nvlink",
            "Consider only GPUs with NVLink between them (NVSwitch boards or NVLink bridges); PCIe-only "
            "cards and AMD Infinity Fabric are left out.",
        )
        self.gpus = NumberEdit(integer=True, optional=True, placeholder="auto — smallest count that works")
        self.add_field(limits_form, "GPU &count:", self.gpus, "gpus", tip("gpus"))

        self.outer_layout.addWidget(money)
        self.outer_layout.addWidget(limits)
        self.outer_layout.addStretch(1)

        b = self.binder
        b.choice(self.purchase_group, {self.rent: Purchase.RENT, self.buy: Purchase.BUY}, "purchase")
        b.number(self.hours, "hours_per_month")
        b.check(self.own_machines, "own_machines")
        b.number(self.electricity, "electricity_usd_per_kwh")
        b.combo(self.tier, "tier")
        b.combo(self.gpu, "gpu")
        b.combo(self.vendor, "vendor")
        b.check(self.require_nvlink, "require_nvlink")
        b.number(self.gpus, "gpus")
