"""The main window: Plan, Monitor and Compare views, menus, status bar, settings and geometry.

The window opens on what it shows first: the Plan view's input pages and live estimate are built
with it. Once it is first painted, the first plan, the hardware probe and the recommendation page
(its charts import pyqtgraph) follow, one step per turn of the event loop (ui/startup.py). The
Monitor and Compare views (pyqtgraph plots, the benchmark and results models) are built when their
tab is first opened or their attribute first read, and the PDF writer's check when the Export menu
first opens (benchmarks/ui_startup.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QFileDialog, QLabel, QMainWindow, QMessageBox, QTabWidget, QWidget

from gpu_advisor.core.files import FileFormatError
from gpu_advisor.core.paths import config_dir
from gpu_advisor.core.request import Assumptions
from gpu_advisor.core.result import Plan
from gpu_advisor.ui.dialogs import ErrorReporter
from gpu_advisor.ui.export_status import ExportStatus
from gpu_advisor.ui.plan.form import PlanForm
from gpu_advisor.ui.plan.wizard import PlanWizard
from gpu_advisor.ui.resources import app_icon
from gpu_advisor.ui.settings import AppSettings, Calibration, load_settings, save_settings
from gpu_advisor.ui.startup import AfterFirstPaint
from gpu_advisor.ui.table_export import add_table_actions, with_suffix
from gpu_advisor.ui.workers import TaskRunner

if TYPE_CHECKING:
    from gpu_advisor.ui.compare.compare_view import CompareView
    from gpu_advisor.ui.monitor.backend import BenchBackend
    from gpu_advisor.ui.monitor.monitor_panel import MonitorPanel
    from gpu_advisor.ui.plan.recommendation_view import RecommendationView

APP_NAME = "GPU Advisor"
VIEW_PLAN, VIEW_MONITOR, VIEW_COMPARE = range(3)
VIEW_NAMES = ("Plan", "Monitor", "Compare")
PLAN_FILTER = "GPU Advisor plan (*.json);;All files (*)"
RESULTS_FILTER = "Benchmark results (*.json);;All files (*)"


def window_settings() -> QSettings:
    """Geometry and window state, in an INI file in the app's config folder (not the desktop registry)."""
    return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)


class MainWindow(QMainWindow):
    """Wires the views to settings, files, background tasks and the hardware probe."""

    def __init__(self, backend: BenchBackend | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(APP_NAME)
        icon = app_icon()
        if icon is not None:
            self.setWindowIcon(icon)
        self.settings, settings_message = load_settings()
        self.errors = ErrorReporter(self, lambda text: self.statusBar().showMessage(text, 10_000))
        self.tasks = TaskRunner()
        self.current_file: Path | None = None
        self.startup_messages: list[str] = [settings_message] if settings_message else []

        self.form = PlanForm(defaults=self._form_defaults(), assumption_defaults=self._assumption_defaults())
        self.form.cancel_pending_plan()  # planned once the window is painted (after_first_paint)
        self.wizard = PlanWizard(self.form)
        self.wizard.model_page.start_folder = self.settings.last_folder or ""
        self._backend = backend
        self._monitor: MonitorPanel | None = None
        self._compare: CompareView | None = None
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        # No Alt mnemonics on the tabs (Ctrl+1/2/3 switch them, see View): Alt+P, Alt+M and Alt+C
        # belong to the fields of the page shown. Monitor and Compare hold an empty page until built.
        for index, name in enumerate(VIEW_NAMES):
            self.tabs.addTab(self.wizard if index == VIEW_PLAN else QWidget(), name)
            self.tabs.setTabToolTip(index, f"{name} (Ctrl+{index + 1})")
        self.tabs.currentChanged.connect(self._view_opened)
        self.setCentralWidget(self.tabs)

        self.hardware_label = QLabel("Detecting hardware…")
        self.export_status = ExportStatus()
        self.statusBar().addPermanentWidget(self.export_status)
        self.statusBar().addPermanentWidget(self.hardware_label)
        self._pdf_unavailable: str | None = None
        self._pdf_checked = False  # the PDF writer is imported on first need, not at start-up
        self._writing_pdf = False  # one PDF export at a time (it runs on the task thread)
        self._build_menus()
        self.precision_dialog: Any = None
        self.wizard.estimate.precision_button.clicked.connect(self.show_precision_table)
        self.wizard.result_view_built.connect(self._result_view_built)
        self.form.plan_ready.connect(self._plan_ready)
        self._plan_ready(None)
        self._restore_geometry()
        if settings_message:
            self.statusBar().showMessage(settings_message, 30_000)
        # Once the window is painted: the planner, then the first plan (now rather than
        # after the typing debounce); the recommendation page in pieces, so that Next to it, or a
        # plan opened, finds it built; last the probe, which imports psutil and NVML on the task
        # thread, holding the GIL while the window would be painted or the steps run.
        self.after_first_paint = AfterFirstPaint(
            self,
            (
                self.form.load_planner,
                self.form.plan_now,
                *self.wizard.result_view_steps(),
                self._probe_hardware,
            ),
        )

    # ---- views built on first use -------------------------------------------------------------------
    @property
    def backend(self) -> BenchBackend:
        """The benchmark engine's link (the default one is made on first use: the probe, the Monitor)."""
        if self._backend is None:
            from gpu_advisor.ui.monitor.backend import default_backend

            self._backend = default_backend()
        return self._backend

    @property
    def monitor(self) -> MonitorPanel:
        """The Monitor view, built on first use (its tab opened, or read here)."""
        if self._monitor is None:
            from gpu_advisor.ui.monitor.monitor_panel import MonitorPanel

            monitor = MonitorPanel(self.backend, self.settings, self.errors)
            monitor.calibration_chosen.connect(self.use_calibration)
            monitor.plan_request = lambda: self.form.request
            add_table_actions(monitor.checklist, "benchmark-run", self.errors.error, self._folder)
            self._monitor = monitor
            self._install_view(VIEW_MONITOR, monitor)
        return self._monitor

    @property
    def compare(self) -> CompareView:
        """The Compare view, built on first use (its tab opened, or read here)."""
        if self._compare is None:
            from gpu_advisor.ui.compare.compare_view import CompareView

            compare = CompareView(self.errors)
            add_table_actions(compare.table, "comparison", self.errors.error, self._folder)
            self._compare = compare
            self._install_view(VIEW_COMPARE, compare)
        return self._compare

    def _install_view(self, index: int, view: QWidget) -> None:
        """Put a built view in place of its tab's empty page; the current tab stays current."""
        current = self.tabs.currentIndex()
        placeholder = self.tabs.widget(index)
        self.tabs.blockSignals(True)  # the tab shown does not change: nothing to announce
        self.tabs.removeTab(index)
        self.tabs.insertTab(index, view, VIEW_NAMES[index])
        self.tabs.setTabToolTip(index, f"{VIEW_NAMES[index]} (Ctrl+{index + 1})")
        self.tabs.setCurrentIndex(current)
        self.tabs.blockSignals(False)
        placeholder.deleteLater()

    def _view_opened(self, index: int) -> None:
        if index == VIEW_MONITOR:
            _ = self.monitor
        elif index == VIEW_COMPARE:
            _ = self.compare

    # ---- settings ----------------------------------------------------------------------------------
    def _form_defaults(self) -> dict[str, Any]:
        s = self.settings
        return {
            "purchase": s.default_purchase,
            "hours_per_month": s.default_hours_per_month,
            "electricity_usd_per_kwh": s.default_electricity_usd_per_kwh,
        }

    def _assumption_defaults(self) -> dict[str, Any]:
        return {"mfu": self.settings.calibration.mfu} if self.settings.calibration else {}

    def _store_settings(self, settings: AppSettings) -> None:
        self.settings = settings
        try:
            save_settings(settings)
        except OSError as exc:
            self.errors.error(
                "Preferences not saved", f"{exc.filename or config_dir()}: {exc.strerror or exc}"
            )
        if self._monitor is not None:
            self._monitor.apply_settings(settings)

    def _result_view_built(self, view: RecommendationView) -> None:
        """Copy and CSV export on the recommendation's tables, and the calibration note."""
        for table, name in ((view.options, "options"), (view.memory_table, "memory-breakdown")):
            add_table_actions(table, name, self.errors.error, self._folder)
        self._update_calibration_note()

    def _update_calibration_note(self) -> None:
        if not self.wizard.result_view_ready:
            return  # set when the recommendation page is built
        calibration = self.settings.calibration
        self.wizard.result_view.assumptions.set_calibration_note(
            f"Training MFU calibrated from a measured run: {calibration.mfu:.1%} ({calibration.source})."
            if calibration
            else ""
        )

    def use_calibration(self, mfu: float, source: str) -> None:
        """Feed a measured MFU back into the planner and remember it."""
        self._store_settings(
            self.settings.model_copy(update={"calibration": Calibration(mfu=mfu, source=source)})
        )
        self.form.set_assumption("mfu", mfu)
        self._update_calibration_note()
        self.statusBar().showMessage(f"Planner now assumes MFU {mfu:.1%}, measured on {source}.", 15_000)

    def show_precision_table(self) -> None:
        """The chosen model's memory at each precision, in a window that follows the inputs."""
        from gpu_advisor.ui.plan.precision_dialog import PrecisionDialog

        if self.precision_dialog is None:
            self.precision_dialog = PrecisionDialog(self.form, self.errors.error, self._folder, self)
        self.precision_dialog.refresh()
        self.precision_dialog.show()
        self.precision_dialog.raise_()

    # ---- menus -------------------------------------------------------------------------------------
    def _action(self, text: str, slot, shortcut: QKeySequence | str | None = None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setStatusTip(tip)
        action.setToolTip(tip or text.replace("&", "").rstrip("…"))
        action.triggered.connect(slot)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.open_action = self._action("&Open plan…", self.open_plan_dialog, QKeySequence.StandardKey.Open)
        self.save_action = self._action("&Save plan", self.save_plan, QKeySequence.StandardKey.Save)
        self.save_as_action = self._action(
            "Save plan &as…", self.save_plan_as, QKeySequence.StandardKey.SaveAs
        )
        self.import_action = self._action(
            "&Import results…",
            self.import_results_dialog,
            "Ctrl+I",
            "Load benchmark results files into Compare",
        )
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addActions([self.open_action, self.save_action, self.save_as_action])
        file_menu.addSeparator()
        file_menu.addAction(self.import_action)
        export_menu = file_menu.addMenu("&Export")
        self.export_json_action = self._action("&JSON…", lambda: self.export_dialog("json"))
        self.export_markdown_action = self._action("&Markdown…", lambda: self.export_dialog("markdown"))
        self.export_pdf_action = self._action("&PDF…", lambda: self.export_dialog("pdf"))
        export_menu.addActions([self.export_json_action, self.export_markdown_action, self.export_pdf_action])
        export_menu.setToolTipsVisible(True)
        export_menu.aboutToShow.connect(self._check_pdf)
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Quit", self.close, QKeySequence.StandardKey.Quit))

        edit_menu = bar.addMenu("&Edit")
        edit_menu.addAction(
            self._action("&Preferences…", self.preferences_dialog, QKeySequence.StandardKey.Preferences)
        )
        view_menu = bar.addMenu("&View")
        for index, name in enumerate(("&Plan", "&Monitor", "&Compare")):
            view_menu.addAction(
                self._action(
                    name, lambda _checked=False, i=index: self.tabs.setCurrentIndex(i), f"Ctrl+{index + 1}"
                )
            )
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self._action("&About GPU Advisor", self.about_dialog))

    def _fill_recent_menu(self) -> None:
        """The recent plans and results files, newest first; a results file opens in Compare."""
        self.recent_menu.clear()
        recent = [Path(p) for p in self.settings.recent_files]
        for i, path in enumerate(recent, start=1):
            action = self.recent_menu.addAction(f"&{i % 10} {path.name}")
            action.setToolTip(str(path))
            action.triggered.connect(lambda _checked=False, p=path: self.open_recent(p))
        if not recent:
            self.recent_menu.addAction("No recent files").setEnabled(False)
        self.recent_menu.setToolTipsVisible(True)

    def open_recent(self, path: Path) -> bool:
        """Open a recent file as what it is: a plan in the Plan view, results in Compare."""
        from gpu_advisor.ui import plan_files

        if not path.is_file():
            self.errors.error("Cannot open", f"{path}: the file is no longer there")
            return False
        if plan_files.is_results_file(path):
            return self.import_results([path]) > 0
        return self.open_plan(path)

    def _check_pdf(self) -> None:
        """Whether PDFs can be written here, found when the Export menu first opens: it imports the
        PDF writer and the results models (tens of ms), which the window does not need to open."""
        if self._pdf_checked:
            return
        from gpu_advisor.ui import plan_files

        self._pdf_checked = True
        self._pdf_unavailable = plan_files.pdf_unavailable_reason()
        if self._pdf_unavailable:
            self.export_pdf_action.setEnabled(False)
            self.export_pdf_action.setToolTip(self._pdf_unavailable)

    def _plan_ready(self, plan: Plan | None) -> None:
        has_plan = self.form.plan is not None
        for action in (
            self.save_action,
            self.save_as_action,
            self.export_json_action,
            self.export_markdown_action,
        ):
            action.setEnabled(has_plan)
        if self._pdf_unavailable is None:
            self.export_pdf_action.setEnabled(has_plan and not self._writing_pdf)

    # ---- files -------------------------------------------------------------------------------------
    def _folder(self) -> str:
        return self.settings.last_folder or str(Path.home())

    def _remember(self, path: Path) -> None:
        self._store_settings(self.settings.with_recent(path))
        self.wizard.model_page.start_folder = self.settings.last_folder or ""

    def open_plan_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open plan", self._folder(), PLAN_FILTER)
        if path:
            self.open_plan(Path(path))

    def open_plan(self, path: Path) -> bool:
        """Load a saved plan's inputs and re-plan them. A bad file gives one dialog; nothing changes."""
        from gpu_advisor.ui import plan_files

        try:
            request = plan_files.load_plan_request(path)
        except FileFormatError as exc:
            self.errors.error("Cannot open plan", str(exc))
            return False
        self.form.load_request(request)
        self.current_file = path
        self._remember(path)
        self.setWindowTitle(f"{path.name} — {APP_NAME}")
        self.tabs.setCurrentIndex(VIEW_PLAN)
        self.wizard.show_result()
        return True

    def save_plan(self) -> bool:
        if self.current_file is None:
            return self.save_plan_as()
        return self._write_plan(self.current_file)

    def save_plan_as(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(self, "Save plan", self._folder(), PLAN_FILTER)
        return bool(path) and self._write_plan(with_suffix(Path(path), ".json"))

    def _write_plan(self, path: Path) -> bool:
        from gpu_advisor.ui import plan_files

        plan = self.form.plan_now() or self.form.plan
        if plan is None:
            self.errors.error("Nothing to save", "Fix the marked fields first: there is no valid plan yet.")
            return False
        try:
            plan_files.save_plan(plan, path)
        except OSError as exc:
            self.errors.error("Plan not saved", f"{path}: {exc.strerror or exc}")
            return False
        self.current_file = path
        self._remember(path)
        self.setWindowTitle(f"{path.name} — {APP_NAME}")
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def export_dialog(self, kind: str) -> None:
        suffix, name = {"json": (".json", "JSON"), "markdown": (".md", "Markdown"), "pdf": (".pdf", "PDF")}[
            kind
        ]
        path, _ = QFileDialog.getSaveFileName(
            self, f"Export {name}", self._folder(), f"{name} (*{suffix});;All files (*)"
        )
        if path:
            self.export(kind, with_suffix(Path(path), suffix))

    def export(self, kind: str, path: Path) -> None:
        """Write the current plan as JSON or Markdown (quick), or PDF (on the worker thread)."""
        from gpu_advisor.ui import plan_files

        plan = self.form.plan_now() or self.form.plan
        if plan is None:
            self.errors.error("Nothing to export", "Fix the marked fields first: there is no valid plan yet.")
            return
        # Compare's results go into the report
        attached = [item.named for item in self._compare.loaded] if self._compare is not None else []
        if kind == "pdf":
            self._writing_pdf = True
            self.export_pdf_action.setEnabled(False)
            self.statusBar().showMessage(f"Writing {path}…")
            self.export_status.started()
            progress = self.export_status.progressed.emit  # queued to the GUI thread by Qt
            self.tasks.submit(
                lambda: plan_files.write_pdf(plan, path, attached, progress=progress),
                lambda _r: self._pdf_written(path, None),
                lambda message: self._pdf_written(path, message),
            )
            return
        writer = plan_files.write_json_report if kind == "json" else plan_files.write_markdown
        try:
            writer(plan, path, attached)
        except OSError as exc:
            self._export_failed(path, f"{path}: {exc.strerror or exc}")
            return
        self._exported(path)

    def _pdf_written(self, path: Path, message: str | None) -> None:
        self._writing_pdf = False
        if message is None:
            self._exported(path)
        else:
            self._export_failed(path, message)

    def _exported(self, path: Path) -> None:
        self._plan_ready(None)
        self.export_status.finished(path)
        self.statusBar().showMessage(f"Exported {path}", 8000)

    def _export_failed(self, path: Path, message: str) -> None:
        self._plan_ready(None)
        self.export_status.finished(None)
        self.errors.error("Export failed", message if str(path) in message else f"{path}: {message}")

    def import_results_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Import results", self._folder(), RESULTS_FILTER)
        if paths:
            self.import_results([Path(p) for p in paths])

    def import_results(self, paths: list[Path]) -> int:
        """Load results files into Compare; returns how many loaded."""
        self.tabs.setCurrentIndex(VIEW_COMPARE)
        loaded = self.compare.add_files(paths)
        if loaded:
            self._remember(paths[-1])
        return loaded

    # ---- dialogs -----------------------------------------------------------------------------------
    def preferences_dialog(self) -> None:
        from gpu_advisor.ui.preferences import PreferencesDialog

        dialog = PreferencesDialog(self.settings, self)
        if dialog.exec() and dialog.result_settings is not None:
            self._store_settings(dialog.result_settings)
            if dialog.result_settings.calibration is None:
                self.form.set_assumption("mfu", Assumptions.model_fields["mfu"].default)
            self._update_calibration_note()

    def about_dialog(self) -> None:
        from gpu_advisor import __version__

        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<h3>{APP_NAME} {__version__}</h3><p>Plans which GPUs to buy or rent for ML training and "
            "inference, then checks the plan on real hardware.</p><p>Command line: "
            "<code>gpu-advisor --help</code></p>",
        )

    # ---- hardware ----------------------------------------------------------------------------------
    def _probe_hardware(self) -> None:
        self.tasks.submit(self.backend.machine_summary, self._hardware_found, self._hardware_failed)

    def _hardware_found(self, summary: str) -> None:
        self.hardware_label.setText(summary)
        self.hardware_label.setToolTip(summary)

    def _hardware_failed(self, message: str) -> None:
        self.hardware_label.setText(f"Hardware unknown ({message})")

    # ---- geometry and closing ------------------------------------------------------------------------
    def _restore_geometry(self) -> None:
        store = window_settings()
        geometry = store.value("geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 800)
        state = store.value("state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        tab = store.value("tab")
        if tab is not None and str(tab).isdigit():
            self.tabs.setCurrentIndex(int(str(tab)))

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override
        self.after_first_paint.cancel()
        if self._monitor is not None:
            self._monitor.shutdown()
        self.wizard.shutdown()
        self.tasks.shutdown()
        store = window_settings()
        store.setValue("geometry", self.saveGeometry())
        store.setValue("state", self.saveState())
        store.setValue("tab", self.tabs.currentIndex())
        store.sync()
        super().closeEvent(event)
